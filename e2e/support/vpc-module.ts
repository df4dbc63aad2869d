/**
 * A module shaped like terraform-aws-modules/vpc, the registry's most used module, written out
 * here (the tests download nothing): 237 inputs with long descriptions, multi-line object types and
 * defaults, a README with badges from the web, relative and anchor links and terraform-docs' tables
 * between its markers, a submodule, two examples and a CHANGELOG.md as semantic-release writes it,
 * years of releases long.
 */

import { olderReleases } from './changelog'

const KINDS = ['public', 'private', 'database', 'redshift', 'elasticache', 'intra', 'outpost']
const REQUIRED = [
  { name: 'name', type: 'string', description: 'Name to be used on all the resources as identifier.' },
  { name: 'azs', type: 'list(string)', description: 'A list of availability zone names or ids in the region, such as `["eu-west-1a", "eu-west-1b"]`.' }
]

interface Input {
  name: string
  type: string
  description: string
  /** HCL, possibly over several lines; undefined for a required input. */
  default?: string
}

/** The inputs: two required, then per subnet kind the families the real module has, to 237 in all. */
export function vpcInputs(): Input[] {
  const inputs: Input[] = REQUIRED.map((input) => ({ ...input }))
  inputs.push({
    name: 'cidr',
    type: 'string',
    description: '(Optional) The IPv4 CIDR block for the VPC. CIDR can be explicitly set or it can be derived from IPAM using `ipv4_netmask_length` & `ipv4_ipam_pool_id`.',
    default: '"10.0.0.0/16"'
  })
  inputs.push({
    name: 'vpc_flow_log_config',
    type: 'object({\n    traffic_type             = optional(string, "ALL")\n    max_aggregation_interval = optional(number, 600)\n    destination              = optional(object({\n      type = string\n      arn  = optional(string)\n    }))\n  })',
    description:
      'Settings of the VPC flow log: which traffic to capture, how often to aggregate it, and where to deliver it. When `destination` is left out, a CloudWatch log group is created with the retention of `flow_log_cloudwatch_log_group_retention_in_days`. See https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-resource-ec2-flowlog.html#cfn-ec2-flowlog-maxaggregationinterval-and-logdestinationtype for the values.',
    default: '{\n    traffic_type             = "ALL"\n    max_aggregation_interval = 600\n    destination = {\n      type = "cloud-watch-logs"\n    }\n  }'
  })
  for (const kind of KINDS) {
    const title = kind[0]!.toUpperCase() + kind.slice(1)
    inputs.push(
      { name: `${kind}_subnets`, type: 'list(string)', description: `A list of ${kind} subnets inside the VPC.`, default: '[]' },
      { name: `${kind}_subnet_names`, type: 'list(string)', description: `Explicit values to use in the Name tag on ${kind} subnets. If empty, Name tags are generated.`, default: '[]' },
      { name: `${kind}_subnet_suffix`, type: 'string', description: `Suffix to append to ${kind} subnets name.`, default: `"${kind}"` },
      { name: `${kind}_subnet_tags`, type: 'map(string)', description: `Additional tags for the ${kind} subnets.`, default: '{}' },
      {
        name: `${kind}_subnet_tags_per_az`,
        type: 'map(map(string))',
        description: `Additional tags for the ${kind} subnets where the primary key is the AZ.`,
        default: '{}'
      },
      { name: `${kind}_subnet_ipv6_prefixes`, type: 'list(string)', description: `Assigns IPv6 ${kind} subnet id based on the Amazon provided /56 prefix base 10 integer (0-256). Must be of equal length to the corresponding IPv4 subnet list.`, default: '[]' },
      { name: `${kind}_subnet_assign_ipv6_address_on_creation`, type: 'bool', description: `Specify true to indicate that network interfaces created in the specified subnet should be assigned an IPv6 address. Default is \`false\`.`, default: 'false' },
      { name: `${kind}_subnet_enable_dns64`, type: 'bool', description: 'Indicates whether DNS queries made to the Amazon-provided DNS Resolver in this subnet should return synthetic IPv6 addresses for IPv4-only destinations.', default: 'true' },
      { name: `${kind}_subnet_private_dns_hostname_type_on_launch`, type: 'string', description: 'The type of hostnames to assign to instances in the subnet at launch. For IPv6-only subnets, an instance DNS name must be based on the instance ID. Valid values: `ip-name`, `resource-name`.', default: 'null' },
      { name: `${kind}_route_table_tags`, type: 'map(string)', description: `Additional tags for the ${kind} route tables.`, default: '{}' },
      { name: `create_${kind}_subnet_route_table`, type: 'bool', description: `Controls if separate route table for ${kind} should be created.`, default: 'false' },
      { name: `${kind}_dedicated_network_acl`, type: 'bool', description: `Whether to use dedicated network ACL (not default) and custom rules for ${kind} subnets.`, default: 'false' },
      { name: `${kind}_acl_tags`, type: 'map(string)', description: `Additional tags for the ${kind} subnets network ACL.`, default: '{}' },
      {
        name: `${kind}_inbound_acl_rules`,
        type: 'list(map(string))',
        description: `${title} subnets inbound network ACLs. Each rule is a map of \`rule_number\`, \`rule_action\`, \`from_port\`, \`to_port\`, \`protocol\` and \`cidr_block\`.`,
        default: '[\n    {\n      rule_number = 100\n      rule_action = "allow"\n      from_port   = 0\n      to_port     = 0\n      protocol    = "-1"\n      cidr_block  = "0.0.0.0/0"\n    },\n  ]'
      },
      {
        name: `${kind}_outbound_acl_rules`,
        type: 'list(map(string))',
        description: `${title} subnets outbound network ACLs.`,
        default: '[\n    {\n      rule_number = 100\n      rule_action = "allow"\n      from_port   = 0\n      to_port     = 0\n      protocol    = "-1"\n      cidr_block  = "0.0.0.0/0"\n    },\n  ]'
      }
    )
  }
  // The long tail: feature flags and tags, each with a description as long as the real ones.
  for (let index = 0; inputs.length < 237; index++) {
    inputs.push({
      name: `enable_feature_${String(index).padStart(3, '0')}`,
      type: index % 3 === 0 ? 'map(string)' : 'bool',
      description: `Should be true to enable feature ${index} of the VPC. This applies to every subnet kind that supports it; see the [AWS documentation](https://docs.aws.amazon.com/vpc/latest/userguide/) for what it costs, and the \`${KINDS[index % KINDS.length]}_subnets\` input for where it applies.`,
      default: index % 3 === 0 ? '{}' : 'false'
    })
  }
  return inputs
}

const OUTPUTS = ['vpc_id', 'vpc_arn', 'vpc_cidr_block', 'default_security_group_id', 'igw_id', 'nat_ids', 'natgw_ids', ...KINDS.flatMap((kind) => [`${kind}_subnets`, `${kind}_subnet_arns`, `${kind}_route_table_ids`])]

function variablesTf(inputs: Input[]): string {
  return inputs
    .map((input) => {
      const lines = [`variable "${input.name}" {`, `  description = ${JSON.stringify(input.description)}`, `  type        = ${input.type}`]
      if (input.default !== undefined) lines.push(`  default     = ${input.default}`)
      return `${lines.join('\n')}\n}\n`
    })
    .join('\n')
}

/** terraform-docs' markdown table cell escaping: underscores, pipes and newlines. */
const cell = (text: string) => text.replace(/_/g, '\\_').replace(/\|/g, '\\|').replace(/\n/g, '<br>')

function terraformDocs(inputs: Input[]): string {
  const inputRows = inputs.map(
    (input) =>
      `| <a name="input_${input.name}"></a> [${cell(input.name)}](#input\\_${cell(input.name)}) | ${cell(input.description)} | \`${input.type.replace(/\s+/g, ' ')}\` | ${input.default === undefined ? 'n/a' : input.default.includes('\n') ? `<pre>${input.default.replace(/\n/g, '<br>')}</pre>` : `\`${input.default}\``} | ${input.default === undefined ? 'yes' : 'no'} |`
  )
  const outputRows = OUTPUTS.map((name) => `| <a name="output_${name}"></a> [${cell(name)}](#output\\_${cell(name)}) | The ${name.replace(/_/g, ' ')} |`)
  return [
    '<!-- BEGIN_TF_DOCS -->',
    '## Requirements',
    '',
    '| Name | Version |',
    '|------|---------|',
    '| <a name="requirement_terraform"></a> [terraform](#requirement\\_terraform) | >= 1.5.7 |',
    '| <a name="requirement_aws"></a> [aws](#requirement\\_aws) | >= 5.46 |',
    '',
    '## Modules',
    '',
    'No modules.',
    '',
    '## Inputs',
    '',
    '| Name | Description | Type | Default | Required |',
    '|------|-------------|------|---------|:--------:|',
    ...inputRows,
    '',
    '## Outputs',
    '',
    '| Name | Description |',
    '|------|-------------|',
    ...outputRows,
    '<!-- END_TF_DOCS -->'
  ].join('\n')
}

function readme(inputs: Input[]): string {
  return `# AWS VPC Terraform module

[![SWUbanner](https://raw.githubusercontent.com/vshymanskyy/StandWithUkraine/main/banner2-direct.svg)](https://github.com/vshymanskyy/StandWithUkraine/blob/main/docs/README.md)

Terraform module which creates VPC resources on AWS: subnets of every kind, route tables, NAT gateways and flow logs.

## Usage

\`\`\`hcl
module "vpc" {
  source = "terraform-aws-modules/vpc/aws"

  name = "my-vpc"
  cidr = "10.0.0.0/16"

  azs             = ["eu-west-1a", "eu-west-1b", "eu-west-1c"]
  private_subnets = ["10.0.1.0/24", "10.0.2.0/24", "10.0.3.0/24"]
  public_subnets  = ["10.0.101.0/24", "10.0.102.0/24", "10.0.103.0/24"]
}
\`\`\`

## Examples

- [Simple](examples/simple): the smallest VPC.
- [Complete](examples/complete): every kind of subnet, NAT per AZ and flow logs.
- The [VPC endpoints submodule](modules/vpc-endpoints) creates endpoints in an existing VPC.

See [the inputs](#inputs) below; [azs](#input_azs) is required.

${terraformDocs(inputs)}

## License

Apache 2 Licensed. See [LICENSE](https://github.com/terraform-aws-modules/terraform-aws-vpc/tree/master/LICENSE) for full details.
`
}

/** How many releases the changelog holds before its newest three: with them, a page about as tall as terraform-aws-vpc's (30,000 px at 1280 px wide). */
const OLDER_RELEASES = 197

/** semantic-release's CHANGELOG.md, newest first, for the versions up to `latest`, and years of releases before them. */
function changelog(): string {
  const entries = [
    ['5.8.1', '2024-04-26', '### Bug Fixes\n\n* Keep `azs` in the order given ([#1062](https://github.com/terraform-aws-modules/terraform-aws-vpc/issues/1062))'],
    ['5.8.0', '2024-04-19', '### Features\n\n* Add `vpc_flow_log_config` for flow logs in one input ([#1057](https://github.com/terraform-aws-modules/terraform-aws-vpc/issues/1057))'],
    ['5.7.2', '2024-04-12', '### Bug Fixes\n\n* Correct `ipv6_cidr_block` of intra subnets ([#1050](https://github.com/terraform-aws-modules/terraform-aws-vpc/issues/1050))']
  ]
  return `# Changelog\n\nAll notable changes to this project will be documented in this file.\n\n${entries
    .map(([version, date, body]) => `## [${version}](https://github.com/terraform-aws-modules/terraform-aws-vpc/compare/v${version}...v${version}) (${date})\n\n${body}\n`)
    .join('\n')}\n${olderReleases('https://github.com/terraform-aws-modules/terraform-aws-vpc', '5.7.2', OLDER_RELEASES, '2024-04-12')}`
}

/** The module's files at a version; `labelSource`, when given, is a module it calls for its names and tags (as vpc modules call null-label). */
export function vpcModule(version = '5.8.1', labelSource?: string): Record<string, string> {
  const inputs = vpcInputs()
  return {
    ...(labelSource ? { 'labels.tf': `module "label" {\n  source  = "${labelSource}"\n  version = "0.25.0"\n\n  namespace = var.name\n}\n` } : {}),
    'README.md': readme(inputs),
    'CHANGELOG.md': changelog(),
    'variables.tf': variablesTf(inputs),
    'outputs.tf': OUTPUTS.map((name) => `output "${name}" {\n  description = "The ${name.replace(/_/g, ' ')}"\n  value       = try(aws_vpc.this[0].id, null)\n}\n`).join('\n'),
    'main.tf': `locals {\n  version = "${version}"\n}\n\nresource "aws_vpc" "this" {\n  count      = 1\n  cidr_block = var.cidr\n  tags       = { Name = var.name }\n}\n\nresource "aws_subnet" "private" {\n  count             = length(var.private_subnets)\n  vpc_id            = aws_vpc.this[0].id\n  cidr_block        = var.private_subnets[count.index]\n  availability_zone = element(var.azs, count.index)\n}\n`,
    'versions.tf': 'terraform {\n  required_version = ">= 1.5.7"\n\n  required_providers {\n    aws = {\n      source  = "hashicorp/aws"\n      version = ">= 5.46"\n    }\n  }\n}\n',
    'modules/vpc-endpoints/README.md': '# AWS VPC Endpoints Terraform sub-module\n\nCreates VPC endpoints in an existing VPC. Back to [the module](../../).\n',
    'modules/vpc-endpoints/main.tf':
      'variable "vpc_id" {\n  description = "The ID of the VPC in which the endpoint will be used"\n  type        = string\n}\n\nvariable "endpoints" {\n  description = "A map of interface and/or gateway endpoints containing their properties and configurations"\n  type        = any\n  default     = {}\n}\n\nresource "aws_vpc_endpoint" "this" {\n  for_each     = var.endpoints\n  vpc_id       = var.vpc_id\n  service_name = each.value.service\n}\n',
    'examples/simple/README.md': '# Simple VPC\n\nThe smallest VPC. The [complete example](../complete) has every kind of subnet.\n',
    'examples/simple/main.tf': 'module "vpc" {\n  source = "../../"\n\n  name = "simple"\n  azs  = ["eu-west-1a", "eu-west-1b"]\n}\n',
    'examples/complete/README.md': '# Complete VPC\n\nEvery kind of subnet, a NAT gateway per AZ, and flow logs.\n',
    'examples/complete/main.tf': 'module "vpc" {\n  source = "../../"\n\n  name            = "complete"\n  azs             = ["eu-west-1a", "eu-west-1b", "eu-west-1c"]\n  private_subnets = ["10.0.1.0/24", "10.0.2.0/24", "10.0.3.0/24"]\n}\n\nmodule "vpc_endpoints" {\n  source = "../../modules/vpc-endpoints"\n\n  vpc_id = module.vpc.vpc_id\n}\n'
  }
}
