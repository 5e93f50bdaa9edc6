/** A module loaded on first use; see {@link lazyModule}. */
export interface LazyModule<M> {
  /** The module, importing it on the first call; a failed import is not remembered (the next call tries again). */
  load(): Promise<M>;
  /** The module once a `load` has resolved, else undefined (for synchronous checks such as `instanceof`). */
  loaded(): M | undefined;
}

/**
 * One memoized dynamic import: the package or chunk is read on the first `load`, never at start-up.
 * The `import()` stays in the caller's file (`lazyModule(() => import('jose'))`), so the bundler
 * still splits it out and the specs that pin where a package may be loaded from still see it there.
 */
export function lazyModule<M>(importer: () => Promise<M>): LazyModule<M> {
  let loading: Promise<M> | undefined;
  let module: M | undefined;
  return {
    load: () =>
      (loading ??= importer().then(
        (value) => (module = value),
        (error: unknown) => {
          loading = undefined;
          throw error;
        },
      )),
    loaded: () => module,
  };
}
