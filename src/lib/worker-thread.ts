import { extname } from 'node:path';
import { Worker } from 'node:worker_threads';

/**
 * A worker thread running the module `name` of the folder of `from` (the caller's
 * import.meta.url): from the build, or from the TypeScript sources when the caller runs from them
 * (tests and bench, through tsx).
 */
export function startWorker(from: string, name: string, workerData: unknown): Worker {
  const extension = extname(new URL(from).pathname);
  const module = new URL(`./${name}${extension}`, from);
  if (extension === '.js') return new Worker(module, { workerData });
  // A worker thread does not inherit tsx's loader: it registers it before loading the module.
  const tsx = import.meta.resolve('tsx/esm/api');
  return new Worker(`import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(module.href)}); })`, {
    eval: true,
    workerData,
  });
}
