declare module 'async-exit-hook' {
  interface AsyncExitHook {
    (hook: (done?: () => void) => void): void;
    unhookEvent(event: string): void;
  }
  const asyncExitHook: AsyncExitHook;
  export default asyncExitHook;
}
