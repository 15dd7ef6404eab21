"""The organizer's screens for one tournament, under /t/<slug>/manage/."""

from django.urls import path

from tournaments.views import event_tools, language, organizer, outlook

urlpatterns = [
    path("", organizer.event, name="manage_event"),
    path("language/", language.event_language, name="manage_language"),
    path("rounds/<int:number>/", organizer.round_view, name="manage_round"),
    path("rounds/<int:number>/quick/", organizer.quick_entry, name="manage_quick"),
    path("rounds/<int:number>/table/", organizer.jump_to_table, name="manage_jump"),
    path("matches/<int:pk>/", organizer.match_view, name="manage_match"),
    path("matches/<int:pk>/row/", organizer.match_row_view, name="manage_match_row"),
    path("players/", organizer.players, name="manage_players"),
    path("standings/", organizer.standings, name="manage_standings"),
    path("standings/top/", organizer.standings_top, name="manage_standings_top"),
    path("players/add/", organizer.add_player, name="manage_add_player"),
    path("players/paste/", organizer.paste_players, name="manage_paste_players"),
    path("players/<int:pk>/rename/", organizer.rename_player, name="manage_rename_player"),
    path("players/<int:pk>/drop/", organizer.drop_player, name="manage_drop_player"),
    path("players/<int:pk>/remove/", organizer.remove_player, name="manage_remove_player"),
    path("players/<int:pk>/readmit/", organizer.readmit_player, name="manage_readmit_player"),
    path("pair/", organizer.pair, name="manage_pair"),
    path("undo/", organizer.undo, name="manage_undo"),
    path("cut/", organizer.cut, name="manage_cut"),
    path("top-cut/", organizer.top_cut, name="manage_top_cut"),
    path("finish/", organizer.finish, name="manage_finish"),
    path("reopen/", organizer.reopen, name="manage_reopen"),
    path("matches/<int:pk>/result/", organizer.result, name="manage_result"),
    path("matches/<int:pk>/game/", organizer.game, name="manage_game"),
    path("clock/", event_tools.clock, name="manage_clock"),
    path("plan/", event_tools.plan, name="manage_plan"),
    path("share/", event_tools.share, name="manage_share"),
    path("staff/", event_tools.staff, name="manage_staff"),
    path("audit/", event_tools.audit_log, name="manage_audit"),
    path("top-tables/", outlook.top_tables, name="manage_top_tables"),
    path("backup.json", event_tools.backup, name="manage_backup"),
]
