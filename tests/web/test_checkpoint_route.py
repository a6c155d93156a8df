"""The latest signed checkpoint at /games/<id>/checkpoint (a C2SP signed note)."""

from pbem.config import Settings
from pbem.ledger.notes import VerifierKey, verify_checkpoint
from pbem.service.service import GameService
from pbem.web import create_app
from tests.service.helpers import ANN, started_pig


def test_checkpoint_route_serves_the_latest_signed_note(tmp_path):
    service = GameService(Settings(home=tmp_path / "home"))
    game_id = started_pig(service)
    service.submit(game_id, ANN, ["hold"])
    response = create_app(service).test_client().get(f"/games/{game_id}/checkpoint")
    assert response.status_code == 200 and response.mimetype == "text/plain"
    keys = [VerifierKey.parse(str(k)) for k in service.keys.verifiers()]
    checkpoint = verify_checkpoint(response.get_data(as_text=True), keys)
    assert checkpoint.size == service.game(game_id).version == 5
    service.close()
