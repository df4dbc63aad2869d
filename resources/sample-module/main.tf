locals {
  words = {
    namespace   = [lower(var.namespace)]
    environment = [lower(var.environment)]
    name        = [lower(var.name)]
    attributes  = [for attribute in var.attributes : lower(attribute)]
  }

  id = join(var.delimiter, flatten([for word in var.label_order : local.words[word]]))

  tags = merge(
    {
      Name        = local.id
      Namespace   = var.namespace
      Environment = var.environment
    },
    var.tags
  )
}
