import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import type { Orm } from './db/database.js';
import { User } from './modules/users/user.entity.js';
import { createUserWithToken } from './modules/users/users.service.js';

const DEMO_EMAIL = 'demo@marketplace.test';

/**
 * On an empty database: a demo user with a write token and an organization, made through the
 * public API. The token is kept in the data directory (it is stored only as a digest in the
 * database) so that later starts can print it again.
 */
export async function ensureDemo(
  app: FastifyInstance,
  orm: Orm,
  config: Config,
  baseUrl: string,
): Promise<void> {
  const file = join(config.dataDir, 'demo-token.json');
  const fork = orm.em.fork();
  const users = await fork.count(User, {});
  let token: string | undefined;
  if (users === 0) {
    const created = await createUserWithToken(
      fork,
      { name: 'Demo User', email: DEMO_EMAIL },
      {
        description: 'Demo token',
        permission: 'write',
      },
    );
    token = created.access_token.token;
    mkdirSync(config.dataDir, { recursive: true });
    await app.inject({
      method: 'POST',
      url: '/organizations.json',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ organization: { name: 'Demo Studio', privacy_setting: 'public' } }),
    });
    writeFileSync(file, JSON.stringify({ email: DEMO_EMAIL, token }), { mode: 0o600 });
  } else if (existsSync(file)) {
    token = (JSON.parse(readFileSync(file, 'utf8')) as { token?: string }).token;
  }
  if (!token) {
    app.log.info('database is not empty: no demo user created');
    return;
  }
  const lines = [
    '',
    `Demo user: ${DEMO_EMAIL}`,
    `Demo token: ${token}`,
    'Try it:',
    `  curl -H "Authorization: Bearer ${token}" ${baseUrl}/organizations.json`,
    // A browser app is the first thing many try: its page is on another origin (a Vite dev server's),
    // and without this line its requests fail with no reason the page can read.
    config.corsOrigins.length > 0
      ? `Web pages allowed (CORS): ${config.corsOrigins.join(', ')}`
      : 'Web pages on another origin are refused (no CORS). To allow one, start with MARKETPLACE_CORS_ORIGINS=<its origin>, e.g. MARKETPLACE_CORS_ORIGINS=http://localhost:5173 for a Vite dev server',
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
