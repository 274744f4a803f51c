/**
 * Keeps WebAssembly on V8's baseline compiler (Liftoff) in a process that only syncs. The WebAssembly such a
 * process runs while it syncs is undici's HTTP parser (llhttp), compiled anew in every process. By default V8
 * recompiles the parser's busy functions with its optimizing compiler on helper threads: about 0.3 s of CPU
 * during a restarted sync's first run on 2 cores, more than half of what its main thread spends, competing with
 * that run and with everything else on the node. The parser's part of a run is each answer's status line and
 * headers (a body passes through as spans of bytes, not byte by byte), too little for optimized code to win that
 * back: warm runs are no slower with it (docs/bench-history/sync.md, "The HTTP parser's optimizing compile").
 *
 * Set at run time, because NODE_OPTIONS accepts only a few V8 flags and this is not one of them. V8 reads it when
 * it compiles a module, so it holds for every module compiled after it: the process's entry point (main.ts) sets
 * it before it loads any module of the service.
 */
import v8 from 'node:v8';

export function keepWebAssemblyOnBaselineTier(): void {
  v8.setFlagsFromString('--liftoff-only');
}
