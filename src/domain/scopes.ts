// What an API key may read: one scope per area of the API (docs/api.md, "Scopes").

export const SCOPES = ['brands:read', 'runs:read', 'reports:read'] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
