import type { App } from '../http/types.ts';

export async function recommendationRoutes(_app: App): Promise<void> {}
