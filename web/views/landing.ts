// `/`: what the service is, the chain head, the data held, and requests to try.

import { apiUrl, getJson, type Overview } from '../api.js';
import { h, link } from '../dom.js';
import { groupDigits } from '../numbers.js';
import type { Rendered, ViewContext } from '../router.js';
import { ago, formatUtc } from '../time.js';

export async function landing(ctx: ViewContext): Promise<Rendered> {
  const overview = await getJson<Overview>('explorer/api/overview', [], ctx.signal);
  const { counts, chainHead, examples } = overview;

  const stat = (name: string, value: string, detail?: string) =>
    h(
      'div',
      { class: 'stat' },
      h('dt', {}, name),
      h('dd', { 'data-stat': name }, groupDigits(value)),
      detail ? h('dd', { class: 'detail' }, detail) : null,
    );

  const requests: [string, string][] = [];
  if (examples.referee)
    requests.push(['The referral set a referee belongs to', apiUrl('api/v2/referral-sets', [['referee', examples.referee]])]);
  if (examples.teamId) {
    const params: [string, string][] = examples.teamEpochs ? [['aggregationEpochs', examples.teamEpochs]] : [];
    requests.push([
      `A team's members over its last ${examples.teamEpochs ?? 10} epochs`,
      apiUrl(`api/v2/teams/${encodeURIComponent(examples.teamId)}/stats`, params),
    ]);
  }
  if (examples.assetId) {
    requests.push([
      'The newest reward summaries of an asset',
      apiUrl('api/v2/rewards/epoch/summaries', [
        ['filter.assetIds', examples.assetId],
        ['pagination.first', '5'],
      ]),
    ]);
  }

  const content = h(
    'section',
    { class: 'landing' },
    h('h1', { tabindex: -1 }, 'epochview'),
    h(
      'p',
      { class: 'lead' },
      'A read-only service for Vega Protocol’s referral sets, team statistics and epoch reward summaries. ',
      'It answers the Vega data-node v2 REST API from read models built by ingesting the chain’s events, and shows the same data here.',
    ),
    h(
      'section',
      { 'aria-labelledby': 'head-title', class: 'card' },
      h('h2', { id: 'head-title' }, 'Chain head'),
      chainHead
        ? h(
            'dl',
            { class: 'stats' },
            stat('Block height', chainHead.height),
            h(
              'div',
              { class: 'stat' },
              h('dt', {}, 'Block time'),
              h('dd', { 'data-stat': 'Block time' }, formatUtc(chainHead.blockTime)),
              h('dd', { class: 'detail' }, ago(chainHead.blockTime, Date.now())),
            ),
          )
        : h('p', {}, 'No block has been ingested yet.'),
    ),
    h(
      'section',
      { 'aria-labelledby': 'data-title', class: 'card' },
      h('h2', { id: 'data-title' }, 'Data held'),
      h(
        'dl',
        { class: 'stats' },
        stat('Referral sets', counts.referralSets),
        stat('Teams', counts.teams),
        stat(
          'Epochs',
          counts.epochs,
          overview.lastEndedEpoch === null ? 'with reward summaries' : `with reward summaries; last ended: ${overview.lastEndedEpoch}`,
        ),
        stat('Assets', counts.assets),
      ),
    ),
    h(
      'section',
      { 'aria-labelledby': 'explore-title' },
      h('h2', { id: 'explore-title' }, 'Explore'),
      h(
        'ul',
        { class: 'tiles' },
        h(
          'li',
          {},
          link('explorer/rewards', h('strong', {}, 'Rewards'), h('span', {}, 'Reward amounts per epoch and asset, by reward type')),
        ),
        h(
          'li',
          {},
          link(
            'explorer/referral-sets',
            h('strong', {}, 'Referral sets'),
            h('span', {}, 'The newest sets; look one up by id, referrer or referee'),
          ),
        ),
        h('li', {}, link('explorer/teams', h('strong', {}, 'Teams'), h('span', {}, 'Teams and their members’ leaderboards'))),
        h('li', {}, link('docs', h('strong', {}, 'API docs'), h('span', {}, 'The OpenAPI document, to try every request'))),
        h('li', {}, link('graphql', h('strong', {}, 'GraphQL'), h('span', {}, 'GraphiQL: the data-node’s GraphQL for these queries'))),
        h('li', {}, link('metrics', h('strong', {}, 'Metrics'), h('span', {}, 'Prometheus metrics of this server'))),
      ),
    ),
    h(
      'section',
      { 'aria-labelledby': 'try-title' },
      h('h2', { id: 'try-title' }, 'Try a request'),
      requests.length
        ? h(
            'ul',
            { class: 'requests' },
            requests.map(([what, url]) => h('li', {}, h('span', {}, what), link(url, h('code', {}, `GET /${url}`)))),
          )
        : h('p', {}, 'There is no data to build example requests from yet.'),
    ),
  );
  return { title: 'Overview', content };
}
