import { randomBytes } from 'node:crypto'

/**
 * A module of realistic shape: variables, resources and outputs over several files, a README,
 * an example, and (optionally) a binary asset that does not compress (a diagram, say).
 * `flavour` names the variables, so that different modules do not share their files.
 */
export function realisticModule(tfFiles: number, assetBytes: number, revision = 0, flavour = 'a'): Record<string, string | Buffer> {
  const files: Record<string, string | Buffer> = {
    'README.md': `# Realistic module\n\nRevision ${revision}.\n\n${'Documentation paragraph about inputs and outputs. '.repeat(40)}\n`,
    'versions.tf': 'terraform {\n  required_version = ">= 1.5"\n  required_providers {\n    aws = {\n      source  = "hashicorp/aws"\n      version = ">= 5.0"\n    }\n  }\n}\n',
    'examples/complete/main.tf': 'module "this" {\n  source = "../.."\n  name   = "example"\n}\n'
  }
  for (let f = 0; f < tfFiles; f++) {
    let text = ''
    for (let v = 0; v < 12; v++) {
      text += `variable "${flavour}_input_${f}_${v}" {\n  type        = map(object({ name = string, size = optional(number, ${v}) }))\n  description = "Input ${v} of file ${f}: what it configures, and why."\n  default     = {}\n}\n\n`
    }
    text += `resource "aws_s3_bucket" "bucket_${f}" {\n  bucket = "bucket-${f}"\n  tags   = { for key, value in var.${flavour}_input_${f}_0 : key => value.name }\n}\n\n`
    text += `output "bucket_${f}_arn" {\n  description = "The ARN of bucket ${f}"\n  value       = aws_s3_bucket.bucket_${f}.arn\n}\n`
    files[`file_${f}.tf`] = text
  }
  if (assetBytes > 0) files['docs/diagram.png'] = randomBytes(assetBytes)
  return files
}

/**
 * About `bytes` of Terraform in one file: variables with long descriptions and object types with
 * defaults, the heavy kind to parse. `seed` makes files of different content.
 */
export function largeTerraform(bytes: number, seed: string): string {
  let text = ''
  for (let i = 0; text.length < bytes; i++) {
    text +=
      `variable "${seed}_input_${i}" {\n  description = "Input ${i}: a long description that says what it configures, why a person would change it, and what happens when they do."\n` +
      `  type = object({\n    name  = string\n    tags  = optional(map(string), {})\n    rules = optional(list(object({ port = number, cidr = string })), [])\n  })\n` +
      `  default = {\n    name  = "value-${i}"\n    rules = [{ port = 443, cidr = "10.0.0.0/8" }]\n  }\n}\n\n`
  }
  return text
}
