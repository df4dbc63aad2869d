import { useEffect, useState } from 'react'

/**
 * Whether a box that scrolls sideways has more to show to its right: a row of tabs wider than the
 * screen fades at its end while it does, so the tabs past the edge are seen to be there. `element`
 * comes from a callback ref (it is there only once what holds it is drawn).
 */
export function useScrollsFurther(element: HTMLElement | null): boolean {
  const [further, setFurther] = useState(false)
  useEffect(() => {
    if (!element) return
    const measure = () => setFurther(element.scrollLeft + element.clientWidth < element.scrollWidth - 1)
    measure()
    const observer = new ResizeObserver(measure)
    observer.observe(element)
    element.addEventListener('scroll', measure, { passive: true })
    return () => {
      observer.disconnect()
      element.removeEventListener('scroll', measure)
    }
  }, [element])
  return further
}
