"""What a bounce of one of our mails says: whether the delivery failed for good.

A delivery status notification (RFC 3464: ``multipart/report; report-type=delivery-status``)
carries a ``Status`` per recipient: ``5.X.X`` is a permanent failure, ``4.X.X`` a delay or a
temporary one (the MTA keeps trying, so it says nothing about the address yet). A bounce
without such a report cannot be told apart and counts as permanent; the gateway marks an
address only after several permanent failures of different mails within a day
(``pbem.mailroom.queue.BOUNCES_TO_MARK``)."""

from __future__ import annotations

import email
import re
from email.message import Message
from email.policy import compat32

STATUS = re.compile(r"^\s*([245])\.\d{1,3}\.\d{1,3}")
MAX_PARTS = 200  # parts looked at; the gateway's SMTP bounds the size already


def permanent_failure(raw: bytes) -> bool:
    """Whether the bounce ``raw`` says the delivery failed for good (see the module)."""
    try:
        msg = email.message_from_bytes(raw, policy=compat32)
        statuses = _statuses(msg)
    except Exception:  # an unreadable report says nothing better than no report
        return True
    if not statuses:
        return True
    return any(status == "5" for status in statuses)


def _statuses(msg: Message) -> list[str]:
    """The classes (2, 4 or 5) of the ``Status`` fields of the delivery-status parts."""
    found: list[str] = []
    for n, part in enumerate(msg.walk()):
        if n >= MAX_PARTS:
            break
        if part.get_content_type() != "message/delivery-status":
            continue
        payload = part.get_payload()
        fields = payload if isinstance(payload, list) else [part]
        for block in fields:
            if not isinstance(block, Message):
                continue
            for value in block.get_all("Status") or []:
                match = STATUS.match(str(value))
                if match:
                    found.append(match.group(1))
    return found
