import { describe, expect, it } from 'vitest';
import { firstClosedFolder, type StatMode } from '../../helpers/pg-binaries.js';

/** A fake file system: folder modes by path; anything not listed is missing. */
function fakeStat(modes: Record<string, number>): StatMode {
  return (path) => (path in modes ? { mode: 0o040000 | modes[path]!, isDirectory: true } : null);
}

describe('firstClosedFolder (can the postgres user reach the binaries?)', () => {
  it('answers null when every folder on the way lets others through', () => {
    const stat = fakeStat({ '/': 0o755, '/srv': 0o711, '/srv/app': 0o755, '/srv/app/bin': 0o755 });
    expect(firstClosedFolder('/srv/app/bin', stat)).toBeNull();
  });

  it('names the first folder others cannot enter, as a 0700 home folder', () => {
    const stat = fakeStat({ '/': 0o755, '/root': 0o700, '/root/app': 0o755, '/root/app/bin': 0o700 });
    expect(firstClosedFolder('/root/app/bin', stat)).toBe('/root');
  });

  it('a folder readable but not passable (o+r, no o+x) is closed', () => {
    const stat = fakeStat({ '/': 0o755, '/opt': 0o754, '/opt/bin': 0o755 });
    expect(firstClosedFolder('/opt/bin', stat)).toBe('/opt');
  });

  it('a missing folder is where the way ends', () => {
    expect(firstClosedFolder('/nope/bin', fakeStat({ '/': 0o755 }))).toBe('/nope');
  });
});
