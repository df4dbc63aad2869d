import { readmeDescription } from '@shared/readme-description'
import type { ProtocolPart } from '../../features/modules/api'

/**
 * A collection's front page (terraform-aws-iam: only submodules, nothing at its root): its
 * submodules with what each is for and how many inputs it takes, each opening its documentation.
 */
export function SubmoduleList({ submodules, setPart }: { submodules: ProtocolPart[]; setPart: (part: string) => void }) {
  return (
    <section className="stack-tight" aria-labelledby="collection-heading">
      <h2 id="collection-heading">A collection of {submodules.length} submodules</h2>
      <p className="muted">Its root holds no Terraform files by design: call one of its submodules.</p>
      <ul className="submodule-list" aria-label="Submodules">
        {submodules.map((submodule) => {
          const description = readmeDescription(submodule.readme)
          return (
            <li key={submodule.path}>
              <button type="button" className="link" onClick={() => setPart(submodule.path)}>
                {submodule.path.replace(/^modules\//, '')}
              </button>{' '}
              <span className="muted">
                · {submodule.inputs.length} input{submodule.inputs.length === 1 ? '' : 's'}
              </span>
              {description && <p className="muted">{description}</p>}
            </li>
          )
        })}
      </ul>
    </section>
  )
}
