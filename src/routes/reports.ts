import type { App } from '../http/types.ts';

export async function reportRoutes(_app: App): Promise<void> {}
