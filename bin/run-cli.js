// What both entry points share: quiet EPIPE, and main()'s result as the exit code.
// `load` imports the CLI's main module: compiled (bin/visync.js) or the TypeScript sources
// (bin/visync-dev.js).
export async function runCli(load) {
  // `visync --help | head` closes stdout early: that is not an error worth a stack trace.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err) => {
      if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw err;
    });
  }
  const { main } = await load();
  process.exitCode = await main(process.argv);
}
