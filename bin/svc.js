#!/usr/bin/env node
// The `svc` command (issue 21 item 2): the same flags as `npm run serve --`: --service <name>[,...],
// --all, --init, or none for the headless stack. Runs the built tree (dist/, from `npm run build`).
import { main } from '../dist/main/cli.js';

await main(process.argv.slice(2));
