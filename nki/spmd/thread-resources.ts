// What an SPMD thread needs that only the main thread can allocate: its own
// SBUF and PSUM arenas (with their init maps) and the tile engine's scratch,
// in device memory, handed over as addresses. The tile engine's compiled
// module is posted to each thread, which instantiates its own.
import { engineModule, tileEngineFromModule, ENGINE_SCRATCH_BYTES } from "../machine/engine.js";
import { hbm } from "../../host/device/hbm.js";
import { allocateArenas, releaseArenas, type Arenas, type LaunchOptions } from "../host/runtime.js";

/** Device memory set aside for one thread (plain numbers: they cross threads). */
export interface ThreadResources {
  arenas: Arenas;
  scratch: number;
}

/** Allocates a thread's arenas and engine scratch (main thread). */
export function allocateThreadResources(): ThreadResources {
  return { arenas: allocateArenas(), scratch: hbm().alloc(ENGINE_SCRATCH_BYTES, "NKI engine scratch") };
}

/** Frees them when the thread has stopped (main thread). */
export function releaseThreadResources(r: ThreadResources): void {
  releaseArenas(r.arenas);
  hbm().release(r.scratch);
}

/** The tile engine's module, compiled once on the main thread and posted to every thread. */
export function engineModuleForThreads(): WebAssembly.Module {
  return engineModule();
}

/**
 * Sets up a worker thread's tile engine over its scratch (it becomes the thread's tileEngine()); returns
 * the launch options that make a run use the thread's arenas.
 */
export function prepareThread(module: WebAssembly.Module, resources: ThreadResources, memory: WebAssembly.Memory): Partial<LaunchOptions> {
  tileEngineFromModule(module, resources.scratch, memory);
  return { arenas: resources.arenas };
}
