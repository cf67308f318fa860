-- One name per resource (the projection, read model, operation and table of each are named
-- alike): the versions recorded under the old names carry over to the new ones.
UPDATE read_model_versions SET model = CASE model
    WHEN 'reward-summaries' THEN 'epoch-reward-summaries'
    WHEN 'team-stats' THEN 'team-member-stats'
    WHEN 'epochs' THEN 'chain-head'
  END
  WHERE model IN ('reward-summaries', 'team-stats', 'epochs');
