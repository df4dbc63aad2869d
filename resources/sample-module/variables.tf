variable "namespace" {
  description = "An abbreviation of your organization, such as `acme`: the first part of every name."
  type        = string
}

variable "environment" {
  description = "Where the resources run, such as `prod`, `staging` or `dev`."
  type        = string
  default     = "dev"
}

variable "name" {
  description = "What the resources are for, such as `app` or `jenkins`."
  type        = string
}

variable "attributes" {
  description = "More words for the name, in order, such as `[\"blue\", \"2\"]`."
  type        = list(string)
  default     = []
}

variable "delimiter" {
  description = "What joins the words of a name."
  type        = string
  default     = "-"
}

variable "tags" {
  description = "Tags every resource gets besides the ones made from the inputs above, such as `{ CostCenter = \"42\" }`."
  type        = map(string)
  default     = {}
}

variable "label_order" {
  description = <<-EOT
    The order the words of the name come in. Any of `namespace`, `environment`, `name` and
    `attributes`; a word left out is not in the name.
  EOT
  type        = list(string)
  default     = ["namespace", "environment", "name", "attributes"]
}
