import type { HomeportBridge } from '@shared/bridge'

declare global {
  interface Window {
    /** Present in the desktop app only (see src-main/preload.ts). */
    homeport?: HomeportBridge
  }
}
