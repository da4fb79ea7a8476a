import type { App } from '../http/types.ts';

export async function brandRoutes(_app: App): Promise<void> {}
