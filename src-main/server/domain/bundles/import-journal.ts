import type { ImportUndoStep } from '../../store/records.js'
import type { Store } from '../../store/port.js'
import type { Caller } from '../core/access.js'
import { NotFoundError } from '../core/errors.js'
import type { ModuleService } from '../modules/modules.js'
import type { OrganizationService } from '../organizations/organizations.js'
import type { GpgKeyService } from '../providers/gpg-keys.js'
import type { PublicMirrors } from '../upstream/public-mirrors.js'
import { TERRAFORM_REGISTRY } from '../../../shared/terraform-config.js'
import type { ProviderService } from '../providers/providers.js'

/** What taking an import back goes through: the same services as the import itself. */
export interface UndoServices {
  store: Store
  organizations: OrganizationService
  modules: ModuleService
  providers: ProviderService
  gpgKeys: GpgKeyService
  publicMirrors: PublicMirrors
}

const SITE_ADMIN: Caller = { kind: 'site-admin' }

/**
 * An import's journal: every write it made, kept in the store (the installation record) right
 * after the write, so a failed import is taken back step by step in reverse, and an import the
 * process stopped in the middle of is taken back at the next start. Everything an import could
 * refuse is checked before its first write (bundle-import.ts); the journal is for what fails
 * after: a full disk, a race with another request, a crash.
 *
 * Why not one database transaction: the import writes through the domain services, as a publish
 * does, each write its own read-check-write of one record on whichever store is in use; a
 * journal of inverse steps gives the same "whole or nothing" on the file store and PostgreSQL.
 */
export class ImportJournal {
  private readonly steps: ImportUndoStep[] = []

  constructor(
    private readonly id: string,
    private readonly services: UndoServices
  ) {}

  /** Records a write just made. */
  async wrote(step: ImportUndoStep): Promise<void> {
    this.steps.push(step)
    await this.services.store.updateInstallation((draft) => {
      draft.importsUnderway = { ...draft.importsUnderway, [this.id]: [...this.steps] }
    })
  }

  /** The import is whole: nothing is to be taken back. */
  async commit(): Promise<void> {
    await forget(this.services.store, this.id)
  }

  /** Takes back every write, the last first, then forgets them. */
  async rollBack(): Promise<void> {
    await undo(this.services, this.steps)
    await forget(this.services.store, this.id)
  }
}

/** At start: takes back every import the previous process did not finish. */
export async function rollBackInterruptedImports(services: UndoServices): Promise<void> {
  for (const [id, steps] of Object.entries(services.store.installation().importsUnderway ?? {})) {
    console.error(`homeport: a bundle import (${id}) was interrupted; taking back its ${steps.length} write(s).`)
    await undo(services, steps)
    await forget(services.store, id)
  }
}

async function forget(store: Store, id: string): Promise<void> {
  if (!store.installation().importsUnderway?.[id]) return
  await store.updateInstallation((draft) => {
    const { [id]: _done, ...others } = draft.importsUnderway ?? {}
    draft.importsUnderway = others
  })
}

/** Undoes `steps` in reverse; a step whose write is gone already (or never happened) is passed over. */
async function undo(services: UndoServices, steps: ImportUndoStep[]): Promise<void> {
  for (const step of [...steps].reverse()) {
    try {
      await undoStep(services, step)
    } catch (error) {
      if (!(error instanceof NotFoundError)) console.error(`homeport: could not take back a bundle import's ${step.kind}: ${(error as Error).message}`)
    }
  }
}

function undoStep({ organizations, modules, providers, gpgKeys, publicMirrors }: UndoServices, step: ImportUndoStep): Promise<void> {
  switch (step.kind) {
    case 'organization':
      return organizations.destroy(SITE_ADMIN, step.name)
    case 'module':
      return modules.deleteProvider(SITE_ADMIN, step)
    case 'module-version':
      return modules.deleteVersion(SITE_ADMIN, step, step.version)
    case 'provider':
      return providers.delete(SITE_ADMIN, { organization: step.organization, registryName: 'private', namespace: step.organization, name: step.name })
    case 'provider-version':
      return providers.deleteVersion(SITE_ADMIN, { organization: step.organization, registryName: 'private', namespace: step.organization, name: step.name }, step.version)
    case 'provider-platform':
      return providers.deletePlatform(SITE_ADMIN, { organization: step.organization, registryName: 'private', namespace: step.organization, name: step.name }, step.version, step.os, step.arch)
    case 'gpg-key':
      return gpgKeys.delete(SITE_ADMIN, step.namespace, step.keyId)
    case 'mirrored-version':
      return publicMirrors.for(step.hostname ?? TERRAFORM_REGISTRY).providers.remove(SITE_ADMIN, step.namespace, step.type, step.version)
    case 'mirrored-platform':
      return publicMirrors.for(step.hostname ?? TERRAFORM_REGISTRY).providers.remove(SITE_ADMIN, step.namespace, step.type, step.version, step.platform)
  }
}
