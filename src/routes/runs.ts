import type { App } from '../http/types.ts';

export async function runRoutes(_app: App): Promise<void> {}
