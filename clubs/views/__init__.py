"""Pages of the clubs app, split by audience: public, accounts, player, staff."""
