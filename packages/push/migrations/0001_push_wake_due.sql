-- Whether a deposit to p_address may cause a wake-up: true when the address has a subscription
-- that is unexpired and not woken within the last p_coalesce_ms (or since its last fetch), or an
-- expired one (which the dispatcher deletes); false when it has subscriptions and none of them is
-- due; null when it has none. The inbox's deposit statement calls it, by the name the caller
-- gives, beside each blob it stores, so a deposit with nothing due costs no statement of its own
-- on the push tables. It errs only towards true: a true answer costs the dispatcher's claim,
-- which decides exactly.
-- PL/pgSQL rather than SQL: PostgreSQL up to 17 plans an SQL function's query again on every
-- call that is not inlined (an aggregate prevents inlining), which every deposit would pay;
-- PL/pgSQL keeps the plan for the session.
CREATE FUNCTION svc_push_wake_due(p_address text, p_now bigint, p_coalesce_ms bigint)
RETURNS boolean
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (
    select bool_or(
      woken_at is null or woken_at <= p_now - p_coalesce_ms
      or (expires_at is not null and expires_at <= p_now)
    )
    from push_subscriptions
    where address = p_address
  );
END
$$;
