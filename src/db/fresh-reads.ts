/**
 * One read shared by the callers that arrive while another is under way, each given a value read
 * after it asked. A value already being read may predate a commit the caller has seen end, so a
 * caller never joins it: it waits for the next read, which starts once that one is done, and every
 * caller arriving meanwhile gets that same next read. Each value is thus as fresh as a read of the
 * caller's own, for at most two reads in flight instead of one per caller.
 */
export function freshReads<T>(read: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined;
  let queued: Promise<T> | undefined;
  const start = (): Promise<T> => {
    const reading = read();
    running = reading;
    const done = () => {
      if (running === reading) running = undefined;
    };
    reading.then(done, done);
    return reading;
  };
  return () => {
    if (!running) return start();
    // Whether the read under way succeeds or fails, the next one starts after it.
    queued ??= running
      .catch(() => undefined)
      .then(() => {
        queued = undefined;
        return start();
      });
    return queued;
  };
}
