import Router from '@koa/router'
import { PROVIDERS_PREFIX } from './providers-v1.js'
import { PRIVATE_PREFIX } from './modules-v1.js'
import { loginService } from '../management/login.js'

/**
 * Service discovery (`/.well-known/terraform.json`): where Terraform finds the module registry
 * (`modules.v1`, the private prefix), the provider registry (`providers.v1`, whose URL must end
 * in `/`), the API (`tfe.v2…`, as go-tfe and Terraform's `cloud` block look it up) and `terraform
 * login` (`login.v1`, relative to this document). Homeport serves no state, so it names none.
 */
export function discoveryRouter(): Router {
  const router = new Router()
  router.get('/.well-known/terraform.json', (ctx) => {
    ctx.type = 'application/json'
    ctx.body = {
      'modules.v1': `${PRIVATE_PREFIX}/`,
      'providers.v1': `${PROVIDERS_PREFIX}/`,
      'tfe.v2': '/api/v2/',
      'tfe.v2.1': '/api/v2/',
      'tfe.v2.2': '/api/v2/',
      'login.v1': loginService()
    }
  })
  return router
}
