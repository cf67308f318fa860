// Apollo Client 3 as the Vega apps run it (InMemoryCache, addTypename, an HttpLink POSTing with
// accept */*), in a process of its own: argv[2] is the service's base URL, stdin a JSON list of
// {query, variables, errorPolicy}; prints a JSON list of {data} or {error: {message, graphQLErrors}}.
import { ApolloClient, gql, HttpLink, InMemoryCache } from '@apollo/client/core/index.js';

const base = process.argv[2];
const requests = JSON.parse(
  await new Promise((resolve) => {
    let text = '';
    process.stdin.on('data', (d) => (text += d));
    process.stdin.on('end', () => resolve(text));
  }),
);
const client = new ApolloClient({
  link: new HttpLink({ uri: `${base}/graphql`, headers: { accept: '*/*' } }),
  // addTypename is on by default in Apollo Client 3 (3.14 warns when it is passed).
  cache: new InMemoryCache(),
});
const results = [];
for (const r of requests) {
  try {
    const answer = await client.query({
      query: gql(r.query),
      variables: r.variables,
      errorPolicy: r.errorPolicy ?? 'none',
      fetchPolicy: 'network-only',
    });
    results.push({ data: answer.data, errors: answer.errors });
  } catch (err) {
    results.push({ error: { message: err.message, graphQLErrors: err.graphQLErrors ?? [] } });
  }
}
process.stdout.write(JSON.stringify(results));
