ALTER TABLE "inbox_registrations" ADD COLUMN "stored_blobs" integer DEFAULT 0 NOT NULL;

UPDATE "inbox_registrations" AS r SET "stored_blobs" =
  (SELECT count(*) FROM "inbox_blobs" AS b WHERE b."address" = r."address");

-- Every change to an address's blobs goes through one of these functions, and each first locks
-- the registration rows it touches, in address order: deposits, acks and prunes of one address
-- are serialized across every instance without deadlocks, and stored_blobs stays exact.
--
-- A batch of deposits, in input order (an address may repeat). Arguments are parallel arrays;
-- the ciphertexts are concatenated (p_ciphertext_ends holds each one's last byte, 1-based) and so
-- are the 32-byte sender keys. p_expires_at is already clamped. One row per input: outcome is
-- 'stored' (with received_at), 'repeat', 'wrong_key', 'not_registered' or 'quota' (with the
-- oldest unexpired expires_at, for Retry-After).
CREATE FUNCTION svc_inbox_deposit(
  p_address text[], p_msg_id text[], p_ciphertexts bytea, p_ciphertext_ends integer[],
  p_sender_keys bytea, p_sender text[], p_expires_at bigint[], p_now bigint, p_quota integer
) RETURNS TABLE (outcome text, received_at bigint, oldest_expires_at bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_recipients text[];
  v_last bigint[];
  v_stored integer[];
  -- Exact unexpired count and oldest expiry of a recipient, counted once it nears the quota.
  v_unexpired integer[];
  v_oldest bigint[];
  v_r integer;
  v_count integer;
  v_min bigint;
  v_start integer;
  v_sender_key bytea;
  v_found_key bytea;
  v_found_expires_at bigint;
  v_exists boolean;
  v_row record;
BEGIN
  SELECT array_agg(DISTINCT a ORDER BY a) INTO v_recipients FROM unnest(p_address) AS a;
  v_last := array_fill(NULL::bigint, ARRAY[cardinality(v_recipients)]);
  v_stored := array_fill(NULL::integer, ARRAY[cardinality(v_recipients)]);
  v_unexpired := v_stored;
  v_oldest := v_last;
  FOR v_row IN
    SELECT r.address, r.last_received_at, r.stored_blobs FROM inbox_registrations AS r
    WHERE r.address = ANY (v_recipients) ORDER BY r.address FOR NO KEY UPDATE
  LOOP
    v_r := array_position(v_recipients, v_row.address);
    v_last[v_r] := v_row.last_received_at;
    v_stored[v_r] := v_row.stored_blobs;
  END LOOP;

  FOR i IN 1 .. cardinality(p_address) LOOP
    outcome := NULL; received_at := NULL; oldest_expires_at := NULL;
    v_r := array_position(v_recipients, p_address[i]);
    v_start := CASE WHEN i = 1 THEN 1 ELSE p_ciphertext_ends[i - 1] + 1 END;
    v_sender_key := substring(p_sender_keys FROM 32 * i - 31 FOR 32);
    SELECT b.sender_key, b.expires_at INTO v_found_key, v_found_expires_at
    FROM inbox_blobs AS b WHERE b.address = p_address[i] AND b.msg_id = p_msg_id[i];
    v_exists := FOUND;

    IF v_last[v_r] IS NULL THEN
      outcome := 'not_registered';
    ELSIF v_exists AND v_found_expires_at > p_now THEN
      outcome := CASE WHEN v_found_key = v_sender_key THEN 'repeat' ELSE 'wrong_key' END;
    ELSE
      IF v_stored[v_r] >= p_quota AND v_unexpired[v_r] IS NULL THEN
        SELECT count(*), min(b.expires_at) INTO v_count, v_min
        FROM inbox_blobs AS b WHERE b.address = p_address[i] AND b.expires_at > p_now;
        v_unexpired[v_r] := v_count;
        v_oldest[v_r] := v_min;
      END IF;
      IF v_unexpired[v_r] >= p_quota THEN
        outcome := 'quota';
        oldest_expires_at := v_oldest[v_r];
      ELSE
        v_last[v_r] := greatest(p_now, v_last[v_r] + 1);
        IF v_exists THEN
          -- An expired blob of the same msgId still waits for the pruner: the deposit replaces it.
          UPDATE inbox_blobs AS b SET
            ciphertext = substring(p_ciphertexts FROM v_start FOR p_ciphertext_ends[i] - v_start + 1),
            sender_key = v_sender_key, sender = p_sender[i],
            received_at = v_last[v_r], expires_at = p_expires_at[i]
          WHERE b.address = p_address[i] AND b.msg_id = p_msg_id[i];
        ELSE
          INSERT INTO inbox_blobs
            (address, msg_id, ciphertext, sender_key, sender, received_at, expires_at)
          VALUES (p_address[i], p_msg_id[i],
            substring(p_ciphertexts FROM v_start FOR p_ciphertext_ends[i] - v_start + 1),
            v_sender_key, p_sender[i], v_last[v_r], p_expires_at[i]);
          v_stored[v_r] := v_stored[v_r] + 1;
        END IF;
        v_unexpired[v_r] := v_unexpired[v_r] + 1;
        v_oldest[v_r] := least(v_oldest[v_r], p_expires_at[i]);
        outcome := 'stored';
        received_at := v_last[v_r];
      END IF;
    END IF;
    RETURN NEXT;
  END LOOP;

  UPDATE inbox_registrations AS r SET last_received_at = s.last, stored_blobs = s.stored
  FROM unnest(v_recipients, v_last, v_stored) AS s(address, last, stored)
  WHERE r.address = s.address AND (r.last_received_at, r.stored_blobs) <> (s.last, s.stored);
END
$$;

-- Removes one unexpired blob; true if there was one.
CREATE FUNCTION svc_inbox_ack(p_address text, p_msg_id text, p_now bigint) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM FROM inbox_registrations WHERE address = p_address FOR NO KEY UPDATE;
  DELETE FROM inbox_blobs
  WHERE address = p_address AND msg_id = p_msg_id AND expires_at > p_now;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  UPDATE inbox_registrations SET stored_blobs = stored_blobs - 1 WHERE address = p_address;
  RETURN true;
END
$$;

-- Deletes up to p_limit expired blobs; returns how many went.
CREATE FUNCTION svc_inbox_prune(p_now bigint, p_limit integer) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  v_addresses text[];
  v_pruned integer;
BEGIN
  SELECT array_agg(DISTINCT e.address ORDER BY e.address) INTO v_addresses
  FROM (SELECT address FROM inbox_blobs WHERE expires_at <= p_now LIMIT p_limit) AS e;
  IF v_addresses IS NULL THEN
    RETURN 0;
  END IF;
  PERFORM FROM inbox_registrations WHERE address = ANY (v_addresses)
  ORDER BY address FOR NO KEY UPDATE;
  WITH pruned AS (
    DELETE FROM inbox_blobs WHERE (address, msg_id) IN (
      SELECT address, msg_id FROM inbox_blobs
      WHERE address = ANY (v_addresses) AND expires_at <= p_now LIMIT p_limit)
    RETURNING address
  ), per_address AS (
    SELECT address, count(*)::integer AS n FROM pruned GROUP BY address
  ), counted AS (
    UPDATE inbox_registrations AS r SET stored_blobs = r.stored_blobs - p.n
    FROM per_address AS p WHERE r.address = p.address
  )
  SELECT coalesce(sum(n), 0) INTO v_pruned FROM per_address;
  RETURN v_pruned;
END
$$;
