// GraphiQL for /graphql (issue 28), built by scripts/build-web.mjs with its assets served by
// epochview: nothing is loaded from another host. Requests go to the page's own /graphql.
import { GraphiQL } from 'graphiql';
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import 'graphiql/graphiql.css';

const ENDPOINT = new URL('graphql', document.baseURI).href;

// Anonymous: GraphiQL sends the operation name it last parsed, so a named default would be sent
// (and not found) with a document typed over it before GraphiQL parses that.
const DEFAULT_QUERY = `# The data-node's GraphQL for referral sets, team members' statistics and reward summaries.
# Ctrl-Enter runs the query; the docs (top left) list every field.
{
  referralSets(pagination: { first: 5 }) {
    edges { node { id referrer totalMembers createdAt } cursor }
    pageInfo { hasNextPage endCursor }
  }
}
`;

/** POSTs the request as Apollo Client does and returns the answer's JSON, errors included. */
async function fetcher(params: unknown): Promise<unknown> {
  const res = await fetch(ENDPOINT, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(params),
  });
  return res.json();
}

createRoot(document.getElementById('graphiql')!).render(createElement(GraphiQL, { fetcher, defaultQuery: DEFAULT_QUERY }));
