// First step of `prepare` (`npm ci` in a clone): when npm itself runs on a Node older than visync
// supports (Debian 12's 20), one line saying that this is fine. npm's own per-package EBADENGINE
// warnings (5 lines for each of 16 packages) are off in .npmrc; this script runs on the Node 22 the
// install added (node_modules/.bin comes first on a script's PATH), so npm's Node is read from the
// user agent npm passes to its scripts. See docs/development.md "Node.js versions".
import { isSupportedNode, MIN_NODE } from '../bin/supported-node.js';

const npmNode = /\bnode\/v(\d+\.\d+\.\d+)/.exec(process.env.npm_config_user_agent ?? '')?.[1];
if (npmNode && !isSupportedNode(npmNode)) {
  // Run by hand on the old Node, this is not the clone's Node: it is then named by its folder.
  const cloneNode = isSupportedNode(process.versions.node) ? `Node ${process.versions.node}` : 'Node 22';
  process.stderr.write(
    `visync: npm runs on Node ${npmNode}, older than the ${MIN_NODE.join('.')} visync needs: fine in this clone, whose scripts, tests and bin/visync.js run on the ${cloneNode} installed in node_modules/node (docs/development.md "Node.js versions")\n`,
  );
}
