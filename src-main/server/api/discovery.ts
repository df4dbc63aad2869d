import Router from '@koa/router'
import { PRIVATE_PREFIX } from './registry-protocol.js'

/**
 * Service discovery (`/.well-known/terraform.json`): where Terraform finds the module registry
 * (`modules.v1`, the private prefix) and the API (`tfe.v2…`, as go-tfe and Terraform's
 * `cloud` block look it up). Homeport serves no providers, login or state, so it names none.
 */
export function discoveryRouter(): Router {
  const router = new Router()
  router.get('/.well-known/terraform.json', (ctx) => {
    ctx.type = 'application/json'
    ctx.body = {
      'modules.v1': `${PRIVATE_PREFIX}/`,
      'tfe.v2': '/api/v2/',
      'tfe.v2.1': '/api/v2/',
      'tfe.v2.2': '/api/v2/'
    }
  })
  return router
}
