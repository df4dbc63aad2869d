output "id" {
  description = "The name to give resources: the words joined, such as `acme-prod-app`."
  value       = local.id
}

output "tags" {
  description = "Tags for every resource, with `Name` set to `id`."
  value       = local.tags
}
