import { describe, expect, it } from 'vitest'
import { queryWords, rank, type SearchText } from '../../src-main/server/domain/assistant/module-search.js'

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
