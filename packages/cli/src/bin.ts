#!/usr/bin/env node
// `marketplace`: on a Node.js older than 22, one line and exit 1 before anything else loads
// (decisions §6); the program is main.ts.
if (Number(process.versions.node.split('.')[0]) < 22) {
  process.stderr.write(
    `marketplace needs Node.js 22 or newer; this is Node.js ${process.versions.node}. Install a newer one (https://nodejs.org/, or \`nvm install 24\`)\n`,
  );
  process.exit(1);
}
await import('./main.js');
