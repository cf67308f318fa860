// Events of the kinds epochview skips, in the proportions of a real chain, so that the demo's
// blocks look like a real chain's and benchmarks measure the skip path too.
//
// In smoketest_to_block_5000 (a real network's events, which test/vega-data reads), other kinds
// are two thirds of the events: a timeUpdate in every block (the demo writes it with beginBlock),
// and about 3.2 more per block, market data and market ticks first. Moving money (a reward payout,
// a transfer) comes with ledger movements and account updates, so every event of ours brings two
// more.

import type { OtherPayload } from '../sources/binary/encode-event.js';
import { Rng } from './random.js';

interface OtherKind {
  key: string;
  type: string;
  /** The oneof field number of BusEvent. */
  field: number;
  /** How often the fixture has it (events in 5,002 blocks). */
  weight: number;
  payload(o: OtherKinds, time: string): string;
}

const KINDS: OtherKind[] = [
  {
    key: 'marketData',
    type: 'BUS_EVENT_TYPE_MARKET_DATA',
    field: 111,
    weight: 5110,
    payload: (o, time) => {
      const mark = o.price();
      return (
        `{"markPrice":"${mark}","bestBidPrice":"${o.price()}","bestBidVolume":"${o.volume()}","bestOfferPrice":"${o.price()}","bestOfferVolume":"${o.volume()}",` +
        `"bestStaticBidPrice":"${o.price()}","bestStaticOfferPrice":"${o.price()}","midPrice":"${mark}","staticMidPrice":"${mark}","market":"${o.market()}",` +
        `"timestamp":"${time}","openInterest":"${o.volume()}","indicativePrice":"0","marketTradingMode":"TRADING_MODE_CONTINUOUS","targetStake":"${o.amount()}",` +
        `"suppliedStake":"${o.amount()}","marketValueProxy":"${o.amount()}","marketState":"STATE_ACTIVE","nextMarkToMarket":"${time}","lastTradedPrice":"${mark}"}`
      );
    },
  },
  {
    key: 'marketTick',
    type: 'BUS_EVENT_TYPE_MARKET_TICK',
    field: 118,
    weight: 4553,
    payload: (o, time) => `{"id":"${o.market()}","time":"${time.slice(0, 10)}"}`,
  },
  {
    key: 'auction',
    type: 'BUS_EVENT_TYPE_AUCTION',
    field: 121,
    weight: 1134,
    payload: (o, time) =>
      `{"marketId":"${o.market()}","leave":true,"start":"${time}","end":"${time}","trigger":"AUCTION_TRIGGER_PRICE","extensionTrigger":"AUCTION_TRIGGER_UNSPECIFIED"}`,
  },
  { key: 'account', type: 'BUS_EVENT_TYPE_ACCOUNT', field: 105, weight: 788, payload: (o) => account(o) },
  {
    key: 'delegationBalance',
    type: 'BUS_EVENT_TYPE_DELEGATION_BALANCE',
    field: 129,
    weight: 661,
    payload: (o) => `{"party":"${o.party()}","nodeId":"${o.node()}","amount":"${o.amount()}","epochSeq":"${o.rng.int(1000)}"}`,
  },
  {
    key: 'rankingEvent',
    type: 'BUS_EVENT_TYPE_VALIDATOR_RANKING',
    field: 140,
    weight: 562,
    payload: (o) =>
      `{"nodeId":"${o.node()}","stakeScore":"0.${o.rng.digits(8)}","performanceScore":"1","rankingScore":"0.${o.rng.digits(8)}","previousStatus":"tendermint","nextStatus":"tendermint","epochSeq":"${o.rng.int(1000)}","tmVotingPower":${o.rng.int(10000)}}`,
  },
  {
    key: 'validatorScore',
    type: 'BUS_EVENT_TYPE_VALIDATOR_SCORE',
    field: 130,
    weight: 560,
    payload: (o) =>
      `{"nodeId":"${o.node()}","epochSeq":"${o.rng.int(1000)}","validatorScore":"0.${o.rng.digits(8)}","normalisedScore":"0.${o.rng.digits(8)}","validatorPerformance":"1","rawValidatorScore":"0.${o.rng.digits(8)}","validatorStatus":"tendermint","multisigScore":"1"}`,
  },
  {
    key: 'marginLevels',
    type: 'BUS_EVENT_TYPE_MARGIN_LEVELS',
    field: 108,
    weight: 318,
    payload: (o, time) =>
      `{"maintenanceMargin":"${o.amount()}","searchLevel":"${o.amount()}","initialMargin":"${o.amount()}","collateralReleaseLevel":"${o.amount()}","partyId":"${o.party()}","marketId":"${o.market()}","asset":"${o.market()}","timestamp":"${time}","marginMode":"MARGIN_MODE_CROSS_MARGIN"}`,
  },
  {
    key: 'order',
    type: 'BUS_EVENT_TYPE_ORDER',
    field: 104,
    weight: 294,
    payload: (o, time) =>
      `{"id":"${o.hex()}","marketId":"${o.market()}","partyId":"${o.party()}","side":"SIDE_BUY","price":"${o.price()}","size":"${o.volume()}","remaining":"${o.volume()}",` +
      `"timeInForce":"TIME_IN_FORCE_GTC","type":"TYPE_LIMIT","createdAt":"${time}","status":"STATUS_ACTIVE","reference":"${o.hex()}","version":"1","batchId":"1"}`,
  },
  {
    key: 'positionStateEvent',
    type: 'BUS_EVENT_TYPE_POSITION_STATE',
    field: 145,
    weight: 282,
    payload: (o) =>
      `{"partyId":"${o.party()}","marketId":"${o.market()}","size":"${o.volume()}","potentialBuys":"${o.volume()}","vwBuyPrice":"${o.price()}","vwSellPrice":"0"}`,
  },
  {
    key: 'transactionResult',
    type: 'BUS_EVENT_TYPE_TRANSACTION_RESULT',
    field: 152,
    weight: 253,
    payload: (o) =>
      `{"partyId":"${o.party()}","status":true,"hash":"${o.hex()}","delegateSubmission":{"nodeId":"${o.node()}","amount":"${o.amount()}"}}`,
  },
  {
    key: 'ledgerMovements',
    type: 'BUS_EVENT_TYPE_LEDGER_MOVEMENTS',
    field: 102,
    weight: 213,
    payload: (o, time) => ledgerMovements(o, time),
  },
];

const BY_KEY = new Map(KINDS.map((k) => [k.key, k]));
const CUMULATIVE = Float64Array.from(KINDS.map((_, i) => KINDS.slice(0, i + 1).reduce((n, k) => n + k.weight, 0)));
/** Other events per block besides the timeUpdate: 21,255 - 5,002 of them in 5,002 blocks. */
export const FIXTURE_OTHER_EVENTS = 16_253 / 5_002;

function account(o: OtherKinds): string {
  return `{"id":"${o.hex()}","owner":"${o.party()}","balance":"${o.amount()}","asset":"${o.market()}","marketId":"!","type":"ACCOUNT_TYPE_GENERAL"}`;
}

function ledgerMovements(o: OtherKinds, time: string): string {
  const entry = `{"fromAccount":{"assetId":"${o.market()}","type":"ACCOUNT_TYPE_GLOBAL_REWARD"},"toAccount":{"assetId":"${o.market()}","type":"ACCOUNT_TYPE_GENERAL","owner":"${o.party()}"},"amount":"${o.amount()}","type":"TRANSFER_TYPE_REWARD_PAYOUT","timestamp":"${time}"}`;
  return `{"ledgerMovements":[{"entries":[${entry}],"balances":[{"account":{"assetId":"${o.market()}","type":"ACCOUNT_TYPE_GENERAL","owner":"${o.party()}"},"balance":"${o.amount()}"}]}]}`;
}

/** The oneof field numbers of the other kinds, for encoding the demo as an event file. */
export const OTHER_PAYLOADS: ReadonlyMap<string, OtherPayload> = new Map(KINDS.map((k) => [k.key, { field: k.field }]));

/** Payload key → BusEventType name of the other kinds. */
export const OTHER_TYPES: Readonly<Record<string, string>> = Object.fromEntries(KINDS.map((k) => [k.key, k.type]));

/**
 * The other events of each block, from a random stream of their own: the events of our kinds,
 * and so every read model's answer, are the same with them as without.
 */
export class OtherKinds {
  readonly rng: Rng;
  private readonly markets: string[];
  private readonly nodes: string[];
  private readonly parties: string[];

  /** `perBlock`: the mean of other events per block, besides those that come with events of ours (default: the fixture's). */
  constructor(
    seed: number,
    private readonly perBlock = FIXTURE_OTHER_EVENTS,
  ) {
    this.rng = new Rng(seed, 0x07e4);
    this.markets = Array.from({ length: 8 }, () => this.hex());
    this.nodes = Array.from({ length: 30 }, () => this.hex());
    this.parties = Array.from({ length: 500 }, () => this.hex());
  }

  /**
   * The other events of a block holding `ours` events of our kinds (markers and timeUpdate
   * aside), as [payload key, payload JSON] pairs.
   */
  forBlock(ours: number, time: string): [key: string, payload: string][] {
    const out: [string, string][] = [];
    const background = this.rng.round(this.perBlock * 2 * this.rng.float());
    for (let i = 0; i < background; i++) {
      const kind = KINDS[this.rng.weighted(CUMULATIVE, KINDS.length)]!;
      out.push([kind.key, kind.payload(this, time)]);
    }
    for (let i = 0; i < ours; i++) {
      for (const key of ['ledgerMovements', 'account']) out.push([key, BY_KEY.get(key)!.payload(this, time)]);
    }
    return out;
  }

  hex(): string {
    let s = '';
    for (let i = 0; i < 8; i++) s += this.rng.u32().toString(16).padStart(8, '0');
    return s;
  }

  market(): string {
    return this.rng.pick(this.markets);
  }

  node(): string {
    return this.rng.pick(this.nodes);
  }

  party(): string {
    return this.rng.pick(this.parties);
  }

  price(): string {
    return this.rng.positiveInt(4 + this.rng.int(6));
  }

  volume(): string {
    return this.rng.positiveInt(1 + this.rng.int(5));
  }

  amount(): string {
    return this.rng.positiveInt(10 + this.rng.int(12));
  }
}
