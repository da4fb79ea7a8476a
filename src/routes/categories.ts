import type { App } from '../http/types.ts';

export async function categoryRoutes(_app: App): Promise<void> {}
