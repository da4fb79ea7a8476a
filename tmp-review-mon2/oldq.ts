const { PgBoss } = await import('pg-boss');
const boss = new PgBoss({ connectionString: process.env.DATABASE_URL!, max: 2 });
await boss.start();
await boss.createQueue('sightline-monitor-asks', { policy: 'stately', expireInSeconds: 900, retryLimit: 3 });
const ids = process.argv.slice(2).map(Number);
await boss.insert('sightline-monitor-asks', ids.map((askId) => ({ data: { askId }, singletonKey: `ask-${askId}` })));
console.log('queued', ids);
await boss.stop({ graceful: false });
