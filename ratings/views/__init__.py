"""Pages of the ratings app: public pages (public.py) and staff actions (staff.py)."""
