from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.scale_in_out import ScaleInOut
from ...types import UNSET, Response, Unset


def _get_kwargs(
    cluster_id: str,
    deployment_id: str,
    *,
    at: float,
    event_id: None | str | Unset = UNSET,
    idempotency_key: None | str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    params: dict[str, Any] = {}

    params["at"] = at

    json_event_id: None | str | Unset
    if isinstance(event_id, Unset):
        json_event_id = UNSET
    else:
        json_event_id = event_id
    params["event_id"] = json_event_id

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/v1/clusters/{cluster_id}/deployments/{deployment_id}".format(
            cluster_id=quote(str(cluster_id), safe=""),
            deployment_id=quote(str(deployment_id), safe=""),
        ),
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | ScaleInOut | None:
    if response.status_code == 200:
        response_200 = ScaleInOut.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())

        return response_429

    if response.status_code == 503:
        response_503 = Problem.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Problem | ScaleInOut]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    cluster_id: str,
    deployment_id: str,
    *,
    client: AuthenticatedClient,
    at: float,
    event_id: None | str | Unset = UNSET,
    idempotency_key: None | str | Unset = UNSET,
) -> Response[Problem | ScaleInOut]:
    """Shut the deployment down at once (its lifetime ended)

    Args:
        cluster_id (str):
        deployment_id (str):
        at (float):
        event_id (None | str | Unset):
        idempotency_key (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | ScaleInOut]
    """

    kwargs = _get_kwargs(
        cluster_id=cluster_id,
        deployment_id=deployment_id,
        at=at,
        event_id=event_id,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    cluster_id: str,
    deployment_id: str,
    *,
    client: AuthenticatedClient,
    at: float,
    event_id: None | str | Unset = UNSET,
    idempotency_key: None | str | Unset = UNSET,
) -> Problem | ScaleInOut | None:
    """Shut the deployment down at once (its lifetime ended)

    Args:
        cluster_id (str):
        deployment_id (str):
        at (float):
        event_id (None | str | Unset):
        idempotency_key (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | ScaleInOut
    """

    return sync_detailed(
        cluster_id=cluster_id,
        deployment_id=deployment_id,
        client=client,
        at=at,
        event_id=event_id,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    cluster_id: str,
    deployment_id: str,
    *,
    client: AuthenticatedClient,
    at: float,
    event_id: None | str | Unset = UNSET,
    idempotency_key: None | str | Unset = UNSET,
) -> Response[Problem | ScaleInOut]:
    """Shut the deployment down at once (its lifetime ended)

    Args:
        cluster_id (str):
        deployment_id (str):
        at (float):
        event_id (None | str | Unset):
        idempotency_key (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | ScaleInOut]
    """

    kwargs = _get_kwargs(
        cluster_id=cluster_id,
        deployment_id=deployment_id,
        at=at,
        event_id=event_id,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    cluster_id: str,
    deployment_id: str,
    *,
    client: AuthenticatedClient,
    at: float,
    event_id: None | str | Unset = UNSET,
    idempotency_key: None | str | Unset = UNSET,
) -> Problem | ScaleInOut | None:
    """Shut the deployment down at once (its lifetime ended)

    Args:
        cluster_id (str):
        deployment_id (str):
        at (float):
        event_id (None | str | Unset):
        idempotency_key (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | ScaleInOut
    """

    return (
        await asyncio_detailed(
            cluster_id=cluster_id,
            deployment_id=deployment_id,
            client=client,
            at=at,
            event_id=event_id,
            idempotency_key=idempotency_key,
        )
    ).parsed
