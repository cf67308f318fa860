// The explorer's entry: the routes of its views, relative to the page's <base>.

import './style.css';
import { Router } from './router.js';
import { landing } from './views/landing.js';
import { referralSets } from './views/referral-sets.js';
import { rewards } from './views/rewards.js';
import { team } from './views/team.js';
import { teams } from './views/teams.js';

new Router(document.getElementById('main')!)
  .add('', landing)
  .add('explorer/rewards', rewards)
  .add('explorer/referral-sets', referralSets)
  .add('explorer/teams', teams)
  .add('explorer/teams/:teamId', team)
  .start();
