"""The service side of play by mail: the message port (``desk``), the records it keeps, and the
followers of the event store that turn stored events into mail (``outbox``), run deadlines
(``scheduler``) and hand mail to the gateway's sender (``queue``). Nothing here speaks SMTP or
reads templates; ``mailgateway`` is the thin shell around it."""
