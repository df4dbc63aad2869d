import { describe, expect, it } from 'vitest'
import { localFolder, parseModuleSource, parseProviderSource, readFolder, readLockFile } from '../../src-main/server/domain/bundles/configuration.js'
import { HclParser } from '../../src-main/server/domain/ingest/hcl-parser.js'

describe('reading a configuration as terraform init does', () => {
  it('classifies module sources as Terraform’s installer does', () => {
    expect(parseModuleSource('./modules/vpc')).toEqual({ kind: 'local', path: './modules/vpc' })
    expect(parseModuleSource('terraform-aws-modules/vpc/aws')).toEqual({ kind: 'registry', hostname: 'registry.terraform.io', namespace: 'terraform-aws-modules', name: 'vpc', provider: 'aws', subdir: '' })
    expect(parseModuleSource('Homeport.Localhost/acme/network/aws//modules/subnet')).toEqual({ kind: 'registry', hostname: 'homeport.localhost', namespace: 'acme', name: 'network', provider: 'aws', subdir: 'modules/subnet' })
    expect(parseModuleSource('localhost:4780/acme/network/aws').kind).toBe('registry')
    for (const other of ['git::https://example.com/x.git', 'github.com/hashicorp/example', 'https://example.com/m.zip', 's3::https://bucket/x', 'acme/network', 'a/b/c/d/e', 'acme/network/AWS']) {
      expect(parseModuleSource(other).kind, other).toBe('other')
    }
  })

  it('reads provider addresses with Terraform’s defaults', () => {
    expect(parseProviderSource('aws')).toEqual({ hostname: 'registry.terraform.io', namespace: 'hashicorp', type: 'aws' })
    expect(parseProviderSource('Integrations/GitHub')).toEqual({ hostname: 'registry.terraform.io', namespace: 'integrations', type: 'github' })
    expect(parseProviderSource('homeport.localhost/acme/tool')).toEqual({ hostname: 'homeport.localhost', namespace: 'acme', type: 'tool' })
    expect(parseProviderSource('a//b')).toBeUndefined()
    expect(parseProviderSource('a/b/c/d')).toBeUndefined()
  })

  it('keeps local sources inside their package', () => {
    expect(localFolder('', './modules/a')).toBe('modules/a')
    expect(localFolder('modules/a', '../b')).toBe('modules/b')
    expect(localFolder('modules/a', '..')).toBe('modules')
    expect(localFolder('', '../outside')).toBeUndefined()
    expect(localFolder('modules/a', '../../../etc')).toBeUndefined()
  })

  it('gathers a folder’s module calls and provider needs (implied ones too), and the lock file', async () => {
    const parser = new HclParser()
    const parse = (file: string, text: string) => parser.parse(file, text)
    try {
      const files = new Map([
        ['main.tf', 'terraform {\n  required_providers {\n    aws = {\n      source  = "hashicorp/aws"\n      version = ">= 5.0"\n    }\n  }\n}\nprovider "aws" {\n  version = "< 6.0"\n}\nmodule "x" {\n  source = "./x"\n}\nresource "random_id" "a" {}\nresource "terraform_data" "b" {}\n'],
        ['x/main.tf', 'broken {'],
        ['x/other.tf.json', '{"module": {"y": {"source": "acme/y/aws", "version": "1.0.0"}}}']
      ])
      const root = await readFolder(files, '', parse)
      expect(root.errors).toEqual([])
      expect(root.calls).toEqual([{ name: 'x', source: './x', version: '' }])
      expect(root.providers).toEqual([
        { hostname: 'registry.terraform.io', namespace: 'hashicorp', type: 'aws', constraints: ['>= 5.0', '< 6.0'] },
        { hostname: 'registry.terraform.io', namespace: 'hashicorp', type: 'random', constraints: [] }
      ])
      const nested = await readFolder(files, 'x', parse)
      expect(nested.errors).toEqual([expect.stringMatching(/^x\/main\.tf does not parse: /)])
      expect(nested.calls).toEqual([{ name: 'y', source: 'acme/y/aws', version: '1.0.0' }])
      const lock = await readLockFile('provider "registry.terraform.io/hashicorp/aws" {\n  version     = "5.31.0"\n  constraints = ">= 5.0"\n  hashes = [\n    "h1:abc=",\n    "zh:0123",\n  ]\n}\n', parse)
      expect([...lock]).toEqual([['registry.terraform.io/hashicorp/aws', { version: '5.31.0', hashes: ['h1:abc=', 'zh:0123'] }]])
      await expect(readLockFile('provider {', parse)).rejects.toThrow(/^\.terraform\.lock\.hcl does not parse: /)
    } finally {
      await parser.close()
    }
  })
})
