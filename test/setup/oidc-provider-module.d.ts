// oidc-provider publishes no type declarations; test/setup/oidc-provider.ts types what it uses.
declare module 'oidc-provider' {
  const Provider: new (issuer: string, configuration: Record<string, unknown>) => unknown;
  export default Provider;
  export const interactionPolicy: {
    base(): Array<{ name: string; checks: { add(check: unknown): void } }> & {
      get(name: string): { name: string; checks: { add(check: unknown): void } };
    };
    Check: {
      new (reason: string, description: string, check: (ctx: any) => boolean | Promise<boolean>): unknown;
      REQUEST_PROMPT: boolean;
      NO_NEED_TO_PROMPT: boolean;
    };
  };
}
