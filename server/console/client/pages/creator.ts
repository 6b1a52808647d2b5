import type { CreatorProfile } from '../../../../data/creators/creator-profile.mapper.js';
import { actionButton, h, replace, table, type Child } from '../dom.js';
import { chartFigure, lineChart, shareBars } from '../charts.js';
import { int, num, pct, when } from '../format.js';
import { guarded, heading, message, type View } from '../view.js';
import { benchmarksSection } from './creator-benchmarks.js';
import { contentSection, reachSection } from './creator-content.js';
import { priceSection } from './creator-price.js';
import { similarSection } from './creator-similar.js';
import { addToListControl } from './creators.js';

/** The profile as the API answers it (GET /v1/creators/{handle}). */
type Profile = CreatorProfile;

interface Verification {
  authenticity_score: number;
  fake_followers_pct: number;
  verdict: string;
  confidence: string;
  /** Absent on checks stored before auth-5.0. */
  confidence_reason?: string;
  checked_at: string;
  model_version: string;
  signals: Array<{
    code: string;
    label: string;
    value: number | null;
    expected: string;
    status: string;
    detail: string;
    penalty: number;
  }>;
}

/** #/creators/{platform}/{handle}: the profile with its numbers as pictures. */
export async function creatorPage(view: View): Promise<void> {
  const { platform = '', handle = '' } = view.params;
  const p = await view.api.get<Profile>(`/v1/creators/${encodeURIComponent(handle)}`, { platform });
  if (view.signal.aborted) return;
  const slot = h('div', { class: 'slot' });
  replace(
    view.root,
    heading(`${p.handle} on ${p.platform}`, h('a', { href: '#/creators', class: 'sub' }, '‹ Back to search')),
    summary(p),
    view.can('lists:write')
      ? h(
          'div',
          { class: 'actions' },
          addToListControl(view, slot, () => [p]),
          slot,
        )
      : null,
    benchmarksSection(p),
    priceSection(p),
    h('section', { class: 'card' }, h('h2', null, 'Followers'), followerChart(p)),
    h('section', { class: 'card' }, h('h2', null, 'Audience'), audienceCharts(p)),
    contentSection(p),
    similarSection(view, p),
    reachSection(view, p),
    authenticitySection(view, p),
    h('section', { class: 'card' }, h('h2', null, 'Recent posts'), postsTable(p)),
  );
}

function summary(p: Profile): HTMLElement {
  const stat = (label: string, value: Child) => h('div', { class: 'stat' }, h('dt', null, label), h('dd', null, value));
  return h(
    'section',
    { class: 'card' },
    p.display_name
      ? h('p', { class: 'lead' }, p.display_name, p.verified ? h('span', { class: 'badge' }, 'verified') : null)
      : null,
    p.bio ? h('p', null, p.bio) : null,
    h(
      'dl',
      { class: 'stats' },
      stat('Followers', int(p.followers)),
      stat('30-day growth', `${int(p.growth.followers_30d)} (${pct(p.growth.followers_30d_pct)})`),
      stat('Engagement', pct(p.engagement_rate)),
      stat('Avg likes', num(p.avg_likes)),
      stat('Avg comments', num(p.avg_comments)),
      stat('Avg views', num(p.avg_views)),
      stat('Posts', int(p.posts_count)),
      stat('Niche', p.niche),
      stat('Location', [p.city, p.country].filter(Boolean).join(', ') || '–'),
      stat('Language', p.language ?? '–'),
      stat('Updated', when(p.updated_at)),
    ),
  );
}

function followerChart(p: Profile): HTMLElement {
  const history = p.growth.history;
  if (history.length === 0) return h('p', { class: 'empty' }, 'No follower history yet.');
  const first = history[0]!;
  const last = history[history.length - 1]!;
  return chartFigure(
    'Followers per day',
    (canvas) =>
      lineChart(
        canvas,
        history.map((d) => d.date),
        [{ label: 'Followers', data: history.map((d) => d.followers) }],
      ),
    `from ${int(first.followers)} on ${first.date} to ${int(last.followers)} on ${last.date}`,
  );
}

function audienceCharts(p: Profile): HTMLElement {
  const a = p.audience;
  const breakdowns: Array<[string, Array<[string, number]>]> = [
    ['Countries', a.countries.map((c) => [c.code, c.pct])],
    ['Age', a.ages.map((c) => [c.range, c.pct])],
    ['Gender', a.genders.map((c) => [c.gender, c.pct])],
    ['Languages', a.languages.map((c) => [c.code, c.pct])],
    ['Cities', a.cities.map((c) => [c.name, c.pct])],
    ['Interests', a.interests.map((c) => [c.name, c.pct])],
  ];
  const charts = breakdowns
    .filter(([, rows]) => rows.length > 0)
    .map(([title, rows]) => {
      const top = rows.slice(0, 10);
      return chartFigure(
        title,
        (canvas) =>
          shareBars(
            canvas,
            top.map((r) => r[0]),
            top.map((r) => r[1]),
          ),
        top.map(([k, v]) => `${k} ${pct(v)}`).join(', '),
      );
    });
  const q = a.quality;
  return h(
    'div',
    null,
    charts.length ? h('div', { class: 'charts' }, charts) : h('p', { class: 'empty' }, 'No audience data yet.'),
    h(
      'p',
      null,
      `Audience quality: real ${pct(q['real_pct'])}, suspicious ${pct(q['suspicious_pct'])}, ` +
        `mass followers ${pct(q['mass_followers_pct'])}, influencers ${pct(q['influencers_pct'])}.`,
    ),
  );
}

/** The stored verdict from the profile, the signals of the latest verification, and a button to run one now. */
function authenticitySection(view: View, p: Profile): HTMLElement {
  const signals = h('div');
  const slot = h('div', { class: 'slot' });
  const a = p.authenticity;
  const section = h(
    'section',
    { class: 'card', 'aria-labelledby': 'auth-title' },
    h('h2', { id: 'auth-title' }, 'Authenticity'),
    h(
      'p',
      { class: 'lead' },
      h('span', { class: `verdict verdict-${a.verdict ?? 'none'}` }, a.verdict ?? 'not scored'),
      ` score ${num(a.score)} / 100 · fake followers ${pct(a.fake_followers_pct)} · checked ${when(a.checked_at)}`,
    ),
    view.can('verify')
      ? actionButton('Verify now', () =>
          guarded(slot, async () => {
            const v = await view.api.send<Verification>('POST', '/v1/verify', {
              handle: p.handle,
              platform: p.platform,
            });
            replace(signals, verificationView(v));
          }),
        )
      : null,
    slot,
    signals,
  );
  void latestVerification(view, p).then((v) =>
    replace(
      signals,
      v
        ? verificationView(v)
        : h(
            'p',
            { class: 'sub' },
            'No detailed check stored for your account yet: “Verify now” runs one and lists its signals.',
          ),
    ),
  );
  return section;
}

async function latestVerification(view: View, p: Profile): Promise<Verification | null> {
  const page = await view.api
    .get<{ data: Verification[] }>('/v1/verifications', { handle: p.handle, platform: p.platform, limit: 1 })
    .catch(() => ({ data: [] }));
  return page.data[0] ?? null;
}

function verificationView(v: Verification): HTMLElement {
  return h(
    'div',
    { class: 'signals' },
    message(
      'info',
      `Verification of ${when(v.checked_at)}: ${v.verdict} (score ${num(v.authenticity_score)}, ` +
        `fake followers ${pct(v.fake_followers_pct)}, confidence ${v.confidence}, model ${v.model_version}).` +
        (v.confidence_reason ? ` ${v.confidence_reason}` : ''),
    ),
    table(
      ['Signal', 'Status', 'Value', 'Expected', 'Penalty', 'Detail'],
      v.signals.map((s) => [
        s.label,
        h('span', { class: `status status-${s.status}` }, s.status),
        num(s.value),
        s.expected,
        num(s.penalty),
        s.detail,
      ]),
      'No signals.',
    ),
  );
}

function postsTable(p: Profile): HTMLElement {
  return table(
    ['Posted', 'Type', 'Likes', 'Comments', 'Views', 'Shares', 'Sponsored'],
    p.recent_posts.map((post) => [
      when(post.posted_at),
      post.type,
      int(post.likes),
      int(post.comments),
      int(post.views),
      int(post.shares),
      post.sponsored ? 'yes' : 'no',
    ]),
    'No posts yet.',
  );
}
