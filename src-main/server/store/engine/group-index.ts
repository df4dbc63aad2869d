/**
 * A group index: the ids of each key's records. A key of one record holds its id itself rather than a
 * Set of one: most keys of the largest groups name one record (an archive's module, a module's name),
 * and at 100,000 modules a Set each was about 30 MB of a start's heap.
 */
export class GroupIndex {
  private readonly members = new Map<string, string | Set<string>>()

  add(key: string, id: string): void {
    const members = this.members.get(key)
    if (members === undefined) this.members.set(key, id)
    else if (typeof members === 'string') {
      if (members !== id) this.members.set(key, new Set([members, id]))
    } else members.add(id)
  }

  remove(key: string, id: string): void {
    const members = this.members.get(key)
    if (members === id) this.members.delete(key)
    else if (typeof members === 'object' && members.delete(id) && members.size === 1) this.members.set(key, members.values().next().value!)
  }

  /** The ids of `key`'s records. */
  ids(key: string): string[] {
    const members = this.members.get(key)
    return members === undefined ? [] : typeof members === 'string' ? [members] : [...members]
  }

  size(key: string): number {
    const members = this.members.get(key)
    return members === undefined ? 0 : typeof members === 'string' ? 1 : members.size
  }

  keys(): IterableIterator<string> {
    return this.members.keys()
  }

  /** Each key and its records' ids. */
  *entries(): IterableIterator<[key: string, ids: Iterable<string>, size: number]> {
    for (const [key, members] of this.members) yield typeof members === 'string' ? [key, [members], 1] : [key, members, members.size]
  }
}
