import type { App } from '../http/types.ts';

export async function analyticsRoutes(_app: App): Promise<void> {}
