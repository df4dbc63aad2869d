import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react'

interface Toast {
  id: number
  message: string
  /** Something to do about it (open what was published). */
  action?: ReactNode
}

const ToastContext = createContext<(message: string, action?: ReactNode) => void>(() => undefined)

/** How long a toast stays: long enough to read and act on; it also goes when dismissed. */
const TOAST_MS = 8000

/**
 * Confirmations that stay in view for a moment whatever is scrolled or opened (a publish that finished).
 * Not a live region: what a toast says is said where it happened too, in that place's own status, so a
 * screen reader hears it once.
 */
export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([])
  const show = useCallback((message: string, action?: ReactNode) => setToasts((shown) => [...shown, { id: Date.now() + Math.random(), message, action }]), [])
  return (
    <ToastContext.Provider value={show}>
      {children}
      <div className="toasts">
        {toasts.map((toast) => (
          <ToastItem key={toast.id} toast={toast} onGone={() => setToasts((shown) => shown.filter((candidate) => candidate.id !== toast.id))} />
        ))}
      </div>
    </ToastContext.Provider>
  )
}

function ToastItem({ toast, onGone }: { toast: Toast; onGone: () => void }) {
  useEffect(() => {
    const timer = setTimeout(onGone, TOAST_MS)
    return () => clearTimeout(timer)
  }, [onGone])
  return (
    <div className="toast card padded" data-testid="toast">
      <span>{toast.message}</span>
      {toast.action}
      <button type="button" className="link" aria-label={`Dismiss: ${toast.message}`} onClick={onGone}>
        ×
      </button>
    </div>
  )
}

/** Shows a toast: `useToast()(message, action)`. */
export function useToast() {
  return useContext(ToastContext)
}
