import { describe, expect, it } from 'vitest'
import { docsSearchText, queryWords, rank, type SearchText } from '../../src-main/server/domain/assistant/module-search.js'
import { NO_DOCS } from '../../src-main/server/domain/archives/docs-cache.js'
import type { ModuleDocs } from '../../src-main/server/domain/archives/module-docs.js'

const text = (fields: Partial<SearchText>): SearchText => ({ name: '', namespace: 'acme', provider: 'aws', description: '', inputs: '', outputs: '', resources: '', readme: '', ...fields })
const modules = [
  { item: 'vpc', text: text({ name: 'vpc', description: 'Creates a VPC with private subnets.', inputs: 'private_subnets A list of private subnets' }) },
  { item: 'eks', text: text({ name: 'eks', description: 'An EKS cluster.', inputs: 'subnet_ids The private subnets the nodes run in', readme: 'Runs in the VPC you give it.' }) },
  { item: 's3-bucket', text: text({ name: 's3-bucket', description: 'An S3 bucket with lifecycle rules.', resources: 'aws_s3_bucket' }) }
]
const byName = (a: string, b: string) => a.localeCompare(b)

describe('ranking modules for an assistant’s search', () => {
  it('splits a query into words as module names are split', () => {
    expect(queryWords('  S3-Bucket, lifecycle  s3 ')).toEqual(['s3', 'bucket', 'lifecycle'])
  })

  it('keeps the modules holding every word, the one named by them first', () => {
    const ranked = rank(modules, 'vpc private subnets', byName)
    expect(ranked.map((entry) => entry.item)).toEqual(['vpc', 'eks'])
    expect(ranked[0]!.matched).toEqual(['name', 'description', 'inputs'])
    expect(ranked[1]!.matched).toEqual(['inputs', 'readme'])
  })

  it('finds a module by a word of its resources or description, and nothing for a word none has', () => {
    expect(rank(modules, 'lifecycle', byName).map((entry) => entry.item)).toEqual(['s3-bucket'])
    expect(rank(modules, 's3 bucket', byName)[0]).toMatchObject({ item: 's3-bucket', matched: ['name', 'description', 'resources'] })
    expect(rank(modules, 'kubernetes', byName)).toEqual([])
  })

  it('lists everything in the tie-break order for an empty query', () => {
    expect(rank(modules, '', byName).map((entry) => entry.item)).toEqual(['eks', 's3-bucket', 'vpc'])
  })
})

describe('a module’s documentation as searched', () => {
  const readme = '# EKS\n\nRuns **Kubernetes** (EKS) in your VPC: `subnet_ids`, S3-backed logs; see https://example.com/docs/eks-setup?x=1.\nÉtat: prêt. Kubernetes again, and again.\n'
  const docs: ModuleDocs = {
    ...NO_DOCS,
    description: 'An EKS cluster on Kubernetes 1.31.',
    root: {
      ...NO_DOCS.root,
      readme,
      inputs: [{ name: 'subnet_ids', description: 'The private subnets the nodes run in.', type: 'list(string)', required: true }] as ModuleDocs['root']['inputs'],
      outputs: [{ name: 'cluster_arn', description: 'The ARN of the cluster.' }] as ModuleDocs['root']['outputs'],
      resources: [{ type: 'aws_eks_cluster', name: 'this' }] as ModuleDocs['root']['resources']
    }
  }

  it('keeps each word once, so a README’s repetitions take no room', () => {
    const text = docsSearchText(docs)
    expect(text.readme.split(' ').filter((word) => word === 'kubernetes')).toHaveLength(1)
    expect(text.inputs).toBe('subnet ids the private subnets nodes run in')
  })

  it('holds a query’s word exactly where the whole text does: within words, across punctuation, after non-ASCII letters', () => {
    const text = docsSearchText(docs)
    const whole = { description: docs.description, readme, inputs: 'subnet_ids The private subnets the nodes run in.', outputs: 'cluster_arn The ARN of the cluster.', resources: 'aws_eks_cluster' }
    for (const word of ['kube', 'ubern', 'kubernetes', 's3', '3', 'backed', 'ids', 'subnet', 'example', 'com', 'setup', 'tat', 'pr', 't', 'x', '1', '131', '31', 'arn', 'eks', 'aws', 'cluster', 'https', 'nothing', 'ksc']) {
      for (const field of ['description', 'readme', 'inputs', 'outputs', 'resources'] as const) {
        expect(text[field].includes(word), `${word} in ${field}`).toBe(whole[field].toLowerCase().includes(word))
      }
    }
  })
})
