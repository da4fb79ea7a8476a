// `sightline mcp`: serve the MCP tools over stdio (src/mcp/stdio.ts) to an AI agent host.
import type { Command } from 'commander';
import { loadMcpClientConfig } from '../../config.ts';

export function register(program: Command): void {
  program
    .command('mcp')
    .description(
      'Serve the read-only MCP tools over stdio for an AI agent host, speaking to the API at SIGHTLINE_BASE_URL (default http://127.0.0.1:8000) with SIGHTLINE_API_KEY.',
    )
    .action(async () => {
      const config = loadMcpClientConfig();
      const { serveStdio } = await import('../../mcp/stdio.ts');
      await serveStdio(config);
    });
}
