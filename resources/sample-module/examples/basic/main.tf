module "labels" {
  source = "../../"

  namespace   = "acme"
  environment = "prod"
  name        = "app"
}

output "id" {
  value = module.labels.id
}
