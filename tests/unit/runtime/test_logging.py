"""One logging path: stdlib records from any module reach Evennia's log, INFO included."""

import logging
from unittest import mock

from omniira_evennia.runtime import logs


def test_info_from_a_plain_module_reaches_the_evennia_log():
    logs.route_to_evennia()
    with (
        mock.patch("evennia.utils.logger.log_info") as info,
        mock.patch("evennia.utils.logger.log_err") as err,
    ):
        logging.getLogger("omniira_evennia.conversation.turn").info("turn took %d ms", 12)
        logging.getLogger("omniira_evennia.llm.jobs").error("diary failed")
    assert [c.args[0] for c in info.call_args_list] == ["turn took 12 ms"]
    assert [c.args[0] for c in err.call_args_list] == ["diary failed"]
