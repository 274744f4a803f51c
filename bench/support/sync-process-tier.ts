/**
 * BENCH_WASM_OPTIMIZED=1: the bench's sync processes (a scale's and those started afresh, which inherit the
 * setting) leave V8 to recompile WebAssembly with its optimizing compiler, as it does by default, instead of
 * keeping it on the baseline compiler as the sync's entry point does: what that setting saves.
 */
import { keepWebAssemblyOnBaselineTier } from '@timetable/sync';

export const WASM_OPTIMIZED = process.env.BENCH_WASM_OPTIMIZED === '1';

/** As the sync's entry point does before it loads the service (services/sync/src/main.ts), unless told otherwise. */
export function tierLikeTheSyncProcess(): void {
  if (!WASM_OPTIMIZED) keepWebAssemblyOnBaselineTier();
}
