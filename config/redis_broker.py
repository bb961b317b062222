"""The Redis broker (`CELERY_BROKER_URL=redis://...`), made to survive a Redis outage.

Celery 5.7's worker, when its broker connection drops, releases the connection's transport
(`collect`) and then closes the connection; closing its channel restores the worker's
unacknowledged (prefetched) messages to Redis through the released transport, which has no
client any more: an AttributeError the worker does not expect, logged as `Unrecoverable
error`, and the worker process exits, its beat with it (found by the Redis fault drill,
docs/reliability.md). Here a channel whose transport has lost its client skips that restore:
Redis is unreachable anyway, the messages stay in Redis's unacked index where kombu's
visibility-timeout restore finds them, and when Redis itself lost them (a restart without
persistence) the beat's sweep re-queues what matters (a waiting bot, an overdue deadline).

Importing this module makes it kombu's transport for `redis://` URLs, in every process
(config/settings/base.py imports it when the broker is Redis), as config/broker.py registers
the embedded broker's scheme."""

from __future__ import annotations

import logging

from kombu.transport import TRANSPORT_ALIASES, redis

log = logging.getLogger(__name__)


class QoS(redis.QoS):
    def restore_unacked(self, client=None):
        if client is None and self.channel.connection.client is None:
            log.warning("broker connection lost: %d unacknowledged message(s) left to Redis's visibility timeout",
                        len(self._delivered))
            self._delivered.clear()
            return
        super().restore_unacked(client)


class Channel(redis.Channel):
    QoS = QoS


class Transport(redis.Transport):
    Channel = Channel


TRANSPORT_ALIASES["redis"] = "config.redis_broker:Transport"
