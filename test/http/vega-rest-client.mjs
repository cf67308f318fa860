// Vega's generated REST client (@vegaprotocol/rest-clients: openapi-typescript-codegen over the
// data-node's OpenAPI document) in a process of its own. Reads a JSON list of calls on stdin,
// [{service, method, args}], makes each against the base URL given as the first argument, and
// prints a JSON list: {body} for an answer, {status, body} for an error the client threw.
import clients from '@vegaprotocol/rest-clients';

const { TradingData } = clients;
TradingData.OpenAPI.BASE = process.argv[2];

let input = '';
for await (const chunk of process.stdin) input += chunk;
const results = [];
for (const { service, method, args } of JSON.parse(input)) {
  try {
    results.push({ body: await TradingData[service][method](...args) });
  } catch (err) {
    if (!(err instanceof TradingData.ApiError)) throw err;
    results.push({ status: err.status, body: err.body });
  }
}
process.stdout.write(JSON.stringify(results));
