"""Names that vulture (``make lint``, at 80 % confidence) would call unused, and why they are not.
Vulture counts any use of a name, so each is used here once, on a stand-in object: nothing
here runs.

* Framework hooks: aiosmtpd calls a handler's ``handle_RCPT(server, session, envelope, address,
  rcpt_options)`` and ``handle_DATA(server, session, envelope)`` with every argument, and
  ``html.parser`` calls ``handle_starttag(tag, attrs)``, whether the hook reads them or not.
* ``application_name``: the parameter of the tracking recorder's ``max_tracking_id``, declared for
  mypy only (``if TYPE_CHECKING``) in the mail views.
* ``CanMutateProtocol``: imported for the casts written as strings (``cast("CanMutateProtocol[...]",
  x)``), which cost nothing at run time on the hot path of loading a record.
* ``n_steps``: the parameter of ``update`` in the ``Bar`` protocol (pbem/cli/progress.py), the
  shape of click's progress bar as mypy checks it; a protocol's methods have no body.
"""

from typing import Any

_: Any = None

used = (
    _.session,
    _.rcpt_options,
    _.attrs,
    _.application_name,
    _.CanMutateProtocol,
    _.n_steps,
)
